// fetch_url: GETs a public http(s) URL and returns its main text (HTML as Markdown; text and Markdown as they are),
// under the web policy it is made with (createFetchUrlTool(policy)).
import { Type } from '@sinclair/typebox';
import type { WebPolicy } from '../adapters-interaction.js';
import { defineRuntimeTool, errorResult, textResult, type RuntimeTool, type ToolTraits } from '../contract.js';
import { bodyKind, decodeBody, parseContentType } from './content-type.js';
import { htmlToMarkdown } from './html-to-markdown.js';

const Parameters = Type.Object(
  {
    url: Type.String({ minLength: 1, description: 'An absolute http:// or https:// URL on the public internet.' }),
  },
  { additionalProperties: false },
);

/** How much of an HTTP error page is quoted back, so the model sees why without a page of boilerplate. */
const ERROR_BODY_CHARS = 500;

function parseUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return `url ${JSON.stringify(raw)} is not an absolute URL; give one such as https://example.com/page`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `url ${JSON.stringify(raw)} uses ${url.protocol.replace(/:$/, '')}; only http and https URLs can be fetched`;
  }
  if (url.username || url.password)
    return `url ${JSON.stringify(raw)} carries credentials; remove the user:password@ part`;
  return url;
}

/** fetch_url's traits: it only reads from the network. */
export const FETCH_URL_TRAITS = { readOnly: true } as const satisfies ToolTraits;

export function createFetchUrlTool(policy: WebPolicy = {}): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...FETCH_URL_TRAITS,
      name: 'fetch_url',
      description:
        'Fetch a public web page or text file by URL (http or https). HTML pages come back as their main text in Markdown ' +
        '(navigation and boilerplate removed); plain text, Markdown and JSON come back as they are. ' +
        'Private, loopback and link-local addresses are refused. Large bodies and slow servers are cut off.',
      parameters: Parameters,
      // Parallel: it reads from the network and changes nothing here.
      executionMode: 'parallel',
    },
    execute: async (_ctx, input, signal) => {
      const url = parseUrl(input.url);
      if (typeof url === 'string') return errorResult(url);
      // Loaded on first fetch: http, https, zlib and dns would otherwise load with every run that never fetches.
      const { guardedFetch } = await import('./guarded-fetch.js');
      const outcome = await guardedFetch(url, policy, signal);
      if (!outcome.ok) return errorResult(`fetch_url failed: ${outcome.message}`, { kind: outcome.kind });
      const { page } = outcome;
      const type = parseContentType(page.headers['content-type']);
      const kind = bodyKind(type, page.body);
      const details = {
        url: page.url,
        status: page.status,
        contentType: type.mime,
        bytes: page.body.length,
        redirects: page.redirects,
      };
      if (page.status < 200 || page.status >= 300) {
        const text = kind === 'binary' ? '' : decodeBody(page.body, type.charset).slice(0, ERROR_BODY_CHARS).trim();
        return errorResult(
          `fetch_url: ${page.url} answered HTTP ${page.status} ${page.statusText}`.trim() + (text ? `\n\n${text}` : ''),
          details,
        );
      }
      if (kind === 'binary') {
        return errorResult(
          `fetch_url: ${page.url} is ${type.mime || 'binary data'} (${page.body.length} bytes), not text; fetch_url returns web pages and text files only.`,
          details,
        );
      }
      const text = decodeBody(page.body, type.charset);
      const header = [`URL: ${page.url}`];
      if (page.redirects.length > 0) header.push(`Redirected from: ${page.redirects[0]}`);
      if (kind === 'text') return textResult(`${header.join('\n')}\n\n${text}`, details);
      const converted = await htmlToMarkdown(text, page.url);
      if (converted.title) header.push(`Title: ${converted.title}`);
      const markdown = converted.markdown || '(the page has no readable text)';
      return textResult(`${header.join('\n')}\n\n${markdown}`, { ...details, title: converted.title });
    },
  });
}
