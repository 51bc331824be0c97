// Verify mode: what a verifier is told, how its verdict is read, and what the worker hears back on a fail.
import { escapeText } from './report.js';

export interface Verdict {
  verdict: 'pass' | 'fail';
  reasons: string;
}

/** Reads `VERDICT: pass|fail` from the verifier's last message; no verdict line counts as a fail. */
export function parseVerdict(text: string): Verdict {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((line) => /^\s*\**\s*VERDICT\s*:/i.test(line));
  if (at < 0) return { verdict: 'fail', reasons: `The verifier gave no "VERDICT: pass" or "VERDICT: fail" line. Its answer: ${text.trim().slice(0, 2000)}` };
  const match = /VERDICT\s*:\s*\**\s*(pass|fail)/i.exec(lines[at]!);
  const verdict = match?.[1]?.toLowerCase() === 'pass' ? 'pass' : 'fail';
  const reasons = [lines[at]!.replace(/^.*?VERDICT\s*:\s*\**\s*(pass|fail)\**\s*[-:—]?\s*/i, ''), ...lines.slice(at + 1)].join('\n').trim();
  return { verdict, reasons };
}

export function verifierPrompt(input: { item: string; task: string; handoff: string; changes: string; round: number }): string {
  return [
    `Check the work a worker did on one item of a batch (verification round ${input.round}).`,
    `<item>${escapeText(input.item)}</item>`,
    `<task>\n${escapeText(input.task)}\n</task>`,
    `<worker_handoff>\n${escapeText(input.handoff)}\n</worker_handoff>`,
    `<changes>\n${escapeText(input.changes)}\n</changes>`,
    'Read the changed files and run the relevant checks (tests, type checks, the commands the task implies). Do not edit anything.',
    'Start your answer with exactly `VERDICT: pass` or `VERDICT: fail`, then give your reasons: for a fail, what is wrong and what to change.',
  ].join('\n\n');
}

export function reworkPrompt(reasons: string, round: number): string {
  return [
    `A verifier checked your work and failed it (round ${round}). Its reasons:`,
    reasons || '(no reasons given)',
    'Fix the problems, check your fix, and end with the whole handoff again: what you changed and how you verified it.',
  ].join('\n\n');
}
