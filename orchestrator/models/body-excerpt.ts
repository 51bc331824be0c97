// What came back, in one short line: a body quoted for an error message, and whether it was an HTML page (a proxy's
// error page, a web UI at the wrong base URL) rather than an API answer.

/** Longest excerpt quoted in an error message. */
export const EXCERPT_CHARS = 200;

/** An HTML page: said so by its content type, or by its first character. */
export function isHtml(body: string, contentType: string | null | undefined): boolean {
  return /\bhtml\b/i.test(contentType ?? '') || body.trimStart().startsWith('<');
}

/** The body on one line, at most EXCERPT_CHARS characters; an HTML page loses its tags (its text says more). */
export function excerpt(body: string, html = false): string {
  const text = html
    ? body
        .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
        .replace(/<[^>]*>/g, ' ')
        .replace(/&nbsp;/g, ' ')
    : body;
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS - 1)}…` : line;
}

/** `an HTML page ("502 Bad Gateway nginx")`, `"{…}"`, or `an empty body`. */
export function describeBody(body: string, contentType: string | null | undefined): string {
  if (body.trim() === '') return 'an empty body';
  const html = isHtml(body, contentType);
  const quoted = JSON.stringify(excerpt(body, html));
  return html ? `an HTML page (${quoted})` : quoted;
}
