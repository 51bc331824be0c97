// The exact call as the user sees it in an approval prompt: one line, then the arguments in full (cut).
import type { CallSubject } from './subject.js';

const SUMMARY_CHARS = 300;
const DETAIL_CHARS = 4_000;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function field(args: unknown, name: string): unknown {
  return typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[name] : undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ⏎ ');
}

export function callSummary(subject: CallSubject): string {
  const { tool, args } = subject;
  const via = subject.via ? ` (via ${subject.via})` : '';
  if (subject.command !== undefined) {
    const cwd = field(args, 'cwd');
    const where = typeof cwd === 'string' ? ` (in ${cwd})` : '';
    const background = field(args, 'run_in_background') === true ? ' (in the background)' : '';
    return cut(`${tool}: ${oneLine(subject.command)}${where}${background}`, SUMMARY_CHARS);
  }
  if (subject.path !== undefined) {
    const shown = subject.path.relative ?? subject.path.absolute;
    if (tool === 'write') {
      const content = field(args, 'content');
      const size = typeof content === 'string' ? `${Buffer.byteLength(content, 'utf8')} bytes` : '';
      const mode = field(args, 'mode') === 'append' ? 'append' : 'overwrite';
      return cut(`write ${shown} (${mode}${size ? `, ${size}` : ''})`, SUMMARY_CHARS);
    }
    if (tool === 'edit') {
      const old = field(args, 'old_string');
      const what = typeof old === 'string' ? `: replace ${JSON.stringify(cut(old, 60))}` : '';
      return cut(`edit ${shown}${what}`, SUMMARY_CHARS);
    }
    return cut(`${tool} ${shown}`, SUMMARY_CHARS);
  }
  let json = '';
  try {
    json = JSON.stringify(args) ?? '';
  } catch {
    json = String(args);
  }
  return cut(`${tool}${via} ${json === '{}' ? '' : json}`.trim(), SUMMARY_CHARS);
}

export function callDetail(subject: CallSubject): string {
  try {
    return cut(JSON.stringify(subject.args, null, 2) ?? '', DETAIL_CHARS);
  } catch {
    return cut(String(subject.args), DETAIL_CHARS);
  }
}
