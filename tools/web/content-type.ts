// Sorts a fetched body by what fetch_url does with it: HTML becomes Markdown, text passes through, the rest is refused.

export type BodyKind = 'html' | 'text' | 'binary';

export interface ContentType {
  mime: string;
  charset?: string;
}

export function parseContentType(header: string | undefined): ContentType {
  if (!header) return { mime: '' };
  const [mime, ...params] = header.split(';');
  const result: ContentType = { mime: mime!.trim().toLowerCase() };
  for (const param of params) {
    const [key, value] = param.split('=');
    if (key?.trim().toLowerCase() === 'charset' && value)
      result.charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return result;
}

const TEXT_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
]);

function looksLikeHtml(body: Buffer): boolean {
  const head = body.subarray(0, 1024).toString('utf8').trimStart().toLowerCase();
  return (
    head.startsWith('<!doctype html') ||
    head.startsWith('<html') ||
    head.startsWith('<head') ||
    head.startsWith('<body')
  );
}

function looksLikeText(body: Buffer): boolean {
  // A NUL byte in the first few KiB means binary for all practical purposes (images, archives, PDFs).
  return !body.subarray(0, 8192).includes(0);
}

export function bodyKind(type: ContentType, body: Buffer): BodyKind {
  const { mime } = type;
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime.startsWith('text/') || TEXT_TYPES.has(mime) || mime.endsWith('+json') || mime.endsWith('+xml'))
    return 'text';
  // Missing or generic types: look at the bytes.
  if (mime === '' || mime === 'application/octet-stream') {
    if (looksLikeHtml(body)) return 'html';
    if (mime === '' && looksLikeText(body)) return 'text';
  }
  return 'binary';
}

/** Decodes with the declared charset, UTF-8 when none is declared or the label is unknown. */
export function decodeBody(body: Buffer, charset: string | undefined): string {
  if (charset) {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // Unknown label: fall through to UTF-8.
    }
  }
  return new TextDecoder('utf-8').decode(body);
}
