// What a browser gets without the console's token, and the console's icon. Both are answered before the token
// check: the icon says nothing, and the page only says how to get the link (`murmur serve` prints it), so a
// person who opened the bare address, or an old link after a restart, is not left with the browser's own 401
// page. Scripts (`/api/*`, `Authorization: Bearer`) keep the documented empty 401.
import { h } from './html.js';

/** A small murmur mark: three arcs, as a sound spreading. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d1d1f"/>' +
  '<circle cx="9" cy="16" r="3" fill="#7d9bff"/><g fill="none" stroke="#7d9bff" stroke-width="2.5" stroke-linecap="round">' +
  '<path d="M15 10a8 8 0 0 1 0 12"/><path d="M20 6a13 13 0 0 1 0 20"/></g></svg>';

/** The icon inline in every page's head (the self-contained report makes no request for it either). */
export const FAVICON_LINK = `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}">`;

/** Whether a request without the token is a person's browser opening a page (not a script or the JSON API). */
export function wantsPage(path: string, method: string, accept: string | undefined, auth: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (path === '/api' || path.startsWith('/api/') || auth !== undefined) return false;
  return (accept ?? '').split(',').some((type) => type.split(';')[0]!.trim().toLowerCase() === 'text/html');
}

/** The page shown, with 401, to a browser without the token. */
export function noTokenPage(host: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Open the console's link — murmur</title>${FAVICON_LINK}<style>
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f7f7f5;color:#1d1d1f}
main{max-width:640px;margin:10vh auto;padding:24px 28px;background:#fff;border:1px solid #dcdcd8;border-radius:10px}
h1{font-size:20px;margin:0 0 10px}code,pre{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f0f0ee;border-radius:4px}
pre{padding:10px 12px;white-space:pre-wrap;word-break:break-all}code{padding:1px 4px}.muted{color:#6b6b70}
</style></head><body><main>
<h1>This console opens with its link</h1>
<p>The murmur console at <code>${h(host)}</code> lets in only browsers that came through the link it printed when it started. Open that link — the first line <code>murmur serve</code> wrote in its terminal:</p>
<pre>murmur console: http://${h(host)}/?token=…</pre>
<p>The link sets a cookie for this browser, then this page and the others open as usual.</p>
<p class="muted">Each start of <code>murmur serve</code> makes a new link, so a link from before a restart no longer works. Lost the terminal? Stop that <code>murmur serve</code> and start it again to get a new one.</p>
</main></body></html>`;
}
