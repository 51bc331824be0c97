import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebPolicy } from '../../tools/adapters-interaction.js';
import { resultText } from '../../tools/contract.js';
import { addressAllowed, classifyAddress } from '../../tools/web/address-policy.js';
import { createFetchUrlTool } from '../../tools/web/fetch-url.js';
import { makeContext } from '../interact/context.js';

const ARTICLE = `<!doctype html><html><head><title>Release 2.0 notes</title></head><body>
<nav><a href="/home">Home</a> | <a href="/about">About us</a> | <a href="/login">Sign in to the portal</a></nav>
<article><h1>What changed in 2.0</h1>
<p>The scheduler now ramps concurrency gradually, watching rate limits, and backs off when the provider answers with errors, so large swarms finish sooner.</p>
<p>Read the <a href="/docs/migrate">migration guide</a> before upgrading, since the configuration file moved and several flags were renamed, which affects scripts.</p>
<ul><li>faster startup</li><li>smaller memory use</li></ul></article>
<footer>Copyright footer boilerplate</footer><script>window.tracking = true;</script></body></html>`;

let server: Server;
let base: string;
const hits: string[] = [];

function route(req: IncomingMessage, res: ServerResponse): void {
  hits.push(req.url ?? '');
  switch (req.url) {
    case '/article':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
      return;
    case '/article.gz':
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(ARTICLE));
      return;
    case '/notes.txt':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('line one\nline two <b>not html</b>\n');
      return;
    case '/readme.md':
      res.writeHead(200, { 'content-type': 'text/markdown' }).end('# Title\n\n- item\n');
      return;
    case '/big':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' }).end('x'.repeat(5000));
      return;
    case '/big-chunked':
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 10; i++) res.write('y'.repeat(500));
      res.end();
      return;
    case '/slow':
      return; // never answers: the fetch must give up on its own
    case '/to-private':
      res.writeHead(302, { location: 'http://10.20.30.40/admin' }).end();
      return;
    case '/to-mapped-private':
      res.writeHead(301, { location: 'http://[::ffff:192.168.1.1]/' }).end();
      return;
    case '/to-article':
      res.writeHead(302, { location: '/article' }).end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' }).end();
      return;
    case '/missing':
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
      return;
    case '/image.png':
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
      return;
    default:
      res.writeHead(500).end();
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const loopbackAllowed: WebPolicy = { allowLoopback: true, maxBytes: 1000, timeoutMs: 5000 };

async function fetchUrl(url: string, web?: WebPolicy) {
  return createFetchUrlTool(web).impl(makeContext(), { url }, new AbortController().signal, () => {});
}

describe('fetch_url', () => {
  it('reduces an HTML page to its main text as Markdown', async () => {
    const result = await fetchUrl(`${base}/article`, { ...loopbackAllowed, maxBytes: 100_000 });
    expect(result.isError).toBeFalsy();
    const text = resultText(result);
    expect(text).toContain(`URL: ${base}/article`);
    expect(text).toContain('Title: Release 2.0 notes');
    expect(text).toMatch(/#+ What changed in 2\.0/);
    expect(text).toContain('The scheduler now ramps concurrency gradually');
    expect(text).toContain(`[migration guide](${base}/docs/migrate)`);
    expect(text).toMatch(/- +faster startup/);
    expect(text).not.toContain('Sign in to the portal');
    expect(text).not.toContain('footer boilerplate');
    expect(text).not.toContain('tracking');
  });

  it('decompresses a gzip body', async () => {
    const result = await fetchUrl(`${base}/article.gz`, { ...loopbackAllowed, maxBytes: 100_000 });
    expect(resultText(result)).toContain('The scheduler now ramps concurrency gradually');
  });

  it('passes plain text and Markdown through unchanged', async () => {
    expect(resultText(await fetchUrl(`${base}/notes.txt`, loopbackAllowed))).toBe(
      `URL: ${base}/notes.txt\n\nline one\nline two <b>not html</b>\n`,
    );
    expect(resultText(await fetchUrl(`${base}/readme.md`, loopbackAllowed))).toBe(
      `URL: ${base}/readme.md\n\n# Title\n\n- item\n`,
    );
  });

  it('refuses a body over the size limit, declared or streamed', async () => {
    for (const path of ['/big', '/big-chunked']) {
      const result = await fetchUrl(`${base}${path}`, loopbackAllowed);
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain('larger than the 1000-byte limit');
    }
  });

  it('gives up on a server that does not answer in time', async () => {
    const result = await fetchUrl(`${base}/slow`, { ...loopbackAllowed, timeoutMs: 300 });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('did not answer within 300 ms');
  });

  it('follows a redirect and re-checks every hop, refusing one to a private address', async () => {
    const followed = await fetchUrl(`${base}/to-article`, { ...loopbackAllowed, maxBytes: 100_000 });
    expect(resultText(followed)).toContain(`Redirected from: ${base}/to-article`);
    expect(resultText(followed)).toContain('What changed in 2.0');

    const refused = await fetchUrl(`${base}/to-private`, loopbackAllowed);
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toContain('redirected to http://10.20.30.40/admin, which is refused');
    expect(resultText(refused)).toContain('10.20.30.40 is a private address');

    const mapped = await fetchUrl(`${base}/to-mapped-private`, loopbackAllowed);
    expect(mapped.isError).toBe(true);
    expect(resultText(mapped)).toContain('is a private address');

    const loop = await fetchUrl(`${base}/loop`, { ...loopbackAllowed, maxRedirects: 3 });
    expect(resultText(loop)).toContain('redirected more than 3 times');
  });

  it('refuses loopback and private addresses by default, checking the resolved address of a name', async () => {
    const before = hits.length;
    const port = new URL(base).port;
    for (const url of [
      `${base}/article`,
      `http://localhost:${port}/article`,
      `http://[::1]:${port}/`,
      `http://0.0.0.0:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      const result = await fetchUrl(url);
      expect(result.isError, url).toBe(true);
      expect(resultText(result)).toMatch(/is a (loopback|private|link-local|reserved) address/);
    }
    expect(resultText(await fetchUrl(`http://localhost:${port}/article`))).toContain(
      'localhost (resolves to 127.0.0.1) is a loopback address',
    );
    // Nothing reached the server.
    expect(hits.length).toBe(before);
  });

  it('refuses other schemes, credentials and non-URLs, naming the value', async () => {
    expect(resultText(await fetchUrl('file:///etc/passwd'))).toContain('uses file; only http and https');
    expect(resultText(await fetchUrl('example.com/page'))).toContain('"example.com/page" is not an absolute URL');
    expect(resultText(await fetchUrl('https://user:pw@example.com/'))).toContain('credentials');
  });

  it('reports an HTTP error status and refuses binary bodies', async () => {
    const missing = await fetchUrl(`${base}/missing`, loopbackAllowed);
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toContain('HTTP 404');
    expect(resultText(missing)).toContain('no such page');
    const image = await fetchUrl(`${base}/image.png`, loopbackAllowed);
    expect(image.isError).toBe(true);
    expect(resultText(image)).toContain('image/png');
  });
});

describe('address policy', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['64:ff9b::a00:1', 'reserved'],
  ])('classifies %s as %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it('allows loopback only when asked, and everything with allowPrivateAddresses', () => {
    expect(addressAllowed('loopback', {})).toBe(false);
    expect(addressAllowed('loopback', { allowLoopback: true })).toBe(true);
    expect(addressAllowed('private', { allowLoopback: true })).toBe(false);
    expect(addressAllowed('private', { allowPrivateAddresses: true })).toBe(true);
    expect(addressAllowed('link-local', { allowPrivateAddresses: true })).toBe(true);
    expect(addressAllowed('public', {})).toBe(true);
  });
});
