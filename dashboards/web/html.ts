// HTML text helpers shared by the console's pages: escaping and a select's options.

export function h(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** `<option>`s from [value, label] pairs, the one equal to `selected` (or '' when undefined) selected. */
export function options(values: readonly (readonly [string, string])[], selected: string | undefined): string {
  return values
    .map(([v, label]) => `<option value="${h(v)}"${v === (selected ?? '') ? ' selected' : ''}>${h(label)}</option>`)
    .join('');
}
