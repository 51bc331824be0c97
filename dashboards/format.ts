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

/** Cuts `text` to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  return width === 1 ? '…' : `${text.slice(0, width - 1)}…`;
}

/** Exactly `width` characters: truncated or padded on the right (or the left with `alignRight`). */
export function fit(text: string, width: number, alignRight = false): string {
  const cut = truncate(text, width);
  return alignRight ? cut.padStart(width) : cut.padEnd(width);
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
