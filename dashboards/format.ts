// Small text helpers shared by the view model, the blessed dashboard and the plain line renderer.

// CSI/OSC sequences and lone control characters: agent and tool text must never drive the user's terminal.
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Removes escape sequences and control characters; tabs become spaces; newlines are kept. */
export function sanitize(text: string): string {
  return text.replace(ANSI, '').replace(/\t/g, '  ').replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

/** One line: sanitised, newlines folded into spaces. */
export function oneLine(text: string): string {
  return sanitize(text).replace(/\n+/g, ' ').trim();
}

const PLAIN = /^[\x20-\x7e]*$/;

/** Terminal cells of one code point: 2 for East Asian wide and emoji ranges, 0 for combining marks. */
function cellWidth(code: number): number {
  if (code < 0x300) return 1;
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || (code >= 0xfe00 && code <= 0xfe0f))
    return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** Terminal cells the text takes (wide CJK characters count two). */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.length;
  let width = 0;
  for (const char of text) width += cellWidth(char.codePointAt(0)!);
  return width;
}

/** The longest prefix of `text` that fits in `width` cells. */
export function sliceWidth(text: string, width: number): string {
  if (PLAIN.test(text)) return text.slice(0, Math.max(0, width));
  let used = 0;
  let end = 0;
  for (const char of text) {
    const w = cellWidth(char.codePointAt(0)!);
    if (used + w > width) break;
    used += w;
    end += char.length;
  }
  return text.slice(0, end);
}

/** Cuts `text` to `width` cells, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width && PLAIN.test(text)) return text;
  if (displayWidth(text) <= width) return text;
  return width === 1 ? '…' : `${sliceWidth(text, width - 1)}…`;
}

/** Exactly `width` cells: truncated, or padded on the right (on the left with `alignRight`). */
export function fit(text: string, width: number, alignRight = false): string {
  const cut = truncate(text, width);
  const padding = ' '.repeat(Math.max(0, width - displayWidth(cut)));
  return alignRight ? padding + cut : cut + padding;
}

/** A clock-like duration: `0:07`, `12:45`, `1:02:03`. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** A human duration for log lines: `850ms`, `3.2s`, `1m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)}m${String(totalSeconds % 60).padStart(2, '0')}s`;
  const minutes = Math.round(totalSeconds / 60);
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** Token counts: `950`, `12.3k`, `4.5M`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 999_500) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatCost(dollars: number): string {
  return dollars < 0.01 && dollars > 0 ? `$${dollars.toFixed(4)}` : `$${dollars.toFixed(2)}`;
}
