// An HTTP GET that refuses non-public addresses at connect time: the DNS answer is checked inside the socket's
// lookup, so the address checked is the address connected to (no rebinding window), and every redirect hop is
// checked again. Size and time limits cover the whole fetch. Failures come back as values.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { WebPolicy } from '../adapters-interaction.js';
import { addressRefusal, bareHostname } from './address-policy.js';

export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_USER_AGENT = 'murmur-fetch/0.1 (+https://github.com/murmur)';

export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  redirects: string[];
}

export type FetchFailureKind = 'refused' | 'too-large' | 'timeout' | 'aborted' | 'network' | 'redirects';
export type FetchOutcome = { ok: true; page: FetchedPage } | { ok: false; kind: FetchFailureKind; message: string };

const ACCEPT = 'text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.5';

/** Thrown inside the lookup and the body reader; turned into a FetchOutcome at the top. */
class FetchFailure extends Error {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
  ) {
    super(message);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(policy: WebPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      // Refuse when any answer is non-public: a name mixing public and private answers is a rebinding trick.
      for (const entry of addresses) {
        const refusal = addressRefusal(hostname, entry.address, policy);
        if (refusal) return callback(new FetchFailure('refused', refusal), '');
      }
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Checks the scheme and, for an IP literal, the address itself (Node skips the lookup for those). */
function checkTarget(url: URL, policy: WebPolicy): FetchFailure | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return new FetchFailure(
      'refused',
      `${url.href} uses ${url.protocol.replace(/:$/, '')}; only http and https URLs can be fetched`,
    );
  }
  const host = bareHostname(url);
  if (isIP(host) !== 0) {
    const refusal = addressRefusal(host, host, policy);
    if (refusal) return new FetchFailure('refused', refusal);
  }
  return undefined;
}

function requestOnce(url: URL, policy: WebPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.get(url, {
      // No pooled sockets: every connection goes through the guarded lookup, and none lingers afterwards.
      agent: false,
      lookup: guardedLookup(policy),
      signal,
      headers: {
        'user-agent': policy.userAgent ?? DEFAULT_USER_AGENT,
        accept: ACCEPT,
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    request.once('response', resolve);
    request.once('error', reject);
  });
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return response.pipe(zlib.createInflate());
  if (encoding === 'br') return response.pipe(zlib.createBrotliDecompress());
  return response;
}

function tooLarge(url: URL, maxBytes: number, size?: number): FetchFailure {
  const seen = size === undefined ? 'more than that' : `${size} bytes`;
  return new FetchFailure('too-large', `${url.href} is larger than the ${maxBytes}-byte limit (${seen})`);
}

/** Reads the body, decompressed, stopping as soon as it passes maxBytes (a compressed bomb stops early too). */
async function readBody(response: IncomingMessage, url: URL, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes && !response.headers['content-encoding']) {
    response.destroy();
    throw tooLarge(url, maxBytes, declared);
  }
  const stream = decoded(response);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw tooLarge(url, maxBytes);
      chunks.push(chunk as Buffer);
    }
  } finally {
    response.destroy();
    if (stream !== response) stream.destroy();
  }
  return Buffer.concat(chunks);
}

function failureOf(error: unknown, url: URL, timedOut: boolean, timeoutMs: number): FetchOutcome {
  if (error instanceof FetchFailure) return { ok: false, kind: error.kind, message: error.message };
  if (timedOut) return { ok: false, kind: 'timeout', message: `${url.href} did not answer within ${timeoutMs} ms` };
  const err = error as NodeJS.ErrnoException;
  if (err?.name === 'AbortError') return { ok: false, kind: 'aborted', message: `fetching ${url.href} was stopped` };
  // A lookup refusal can arrive wrapped by the socket layer.
  if (err?.cause instanceof FetchFailure) return { ok: false, kind: err.cause.kind, message: err.cause.message };
  const code = err?.code ? ` (${err.code})` : '';
  return {
    ok: false,
    kind: 'network',
    message: `could not fetch ${url.href}: ${err?.message ?? String(error)}${code}`,
  };
}

/** GETs `start`, following redirects, within the policy's address, size and time limits. */
export async function guardedFetch(start: URL, policy: WebPolicy, signal: AbortSignal): Promise<FetchOutcome> {
  const maxBytes = policy.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = policy.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const redirects: string[] = [];
  let url = start;
  try {
    for (;;) {
      const refused = checkTarget(url, policy);
      if (refused) throw refused;
      const response = await requestOnce(url, policy, combined);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        if (redirects.length >= maxRedirects)
          throw new FetchFailure('redirects', `${start.href} redirected more than ${maxRedirects} times`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new FetchFailure('network', `${url.href} redirected to an invalid URL ${JSON.stringify(location)}`);
        }
        redirects.push(url.href);
        url = next;
        continue;
      }
      const body = await readBody(response, url, maxBytes);
      return {
        ok: true,
        page: {
          url: url.href,
          status,
          statusText: response.statusMessage ?? '',
          headers: response.headers,
          body,
          redirects,
        },
      };
    }
  } catch (error) {
    const outcome = failureOf(error, url, timeout.aborted && !signal.aborted, timeoutMs);
    if (!outcome.ok && outcome.kind === 'refused' && redirects.length > 0) {
      return { ...outcome, message: `${start.href} redirected to ${url.href}, which is refused: ${outcome.message}` };
    }
    return outcome;
  }
}
