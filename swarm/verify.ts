// Verify mode: what a verifier is told, how its verdict is read, what the worker hears back on a fail, and the
// rounds themselves (verifier, verdict, rework) for one item.
import { describeChanges } from './changes.js';
import type { AttemptProgress, SwarmItem } from './item-state.js';
import { type Attempt, endsWithHandoff, rateLimited } from './item-launcher.js';
import { escapeText, type ItemResult } from './report.js';
import type { SwarmAgent, SwarmAgents } from './swarm-agents.js';
import { markWork, restoreWork } from './verifier-guard.js';

/** How much of a verifier's reasons a failed item's `reason` keeps (the worker's rework prompt gets them all). */
const REASON_CHARS = 1_000;

export interface Verdict {
  verdict: 'pass' | 'fail';
  reasons: string;
}

/**
 * Reads `VERDICT: pass|fail` from the verifier's last message; no verdict line counts as a fail. The reasons are
 * the rest of the answer as the verifier wrote it: what it said before the verdict line (often what it checked),
 * then the rest of that line and what follows.
 */
export function parseVerdict(text: string): Verdict {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((line) => /^\s*\**\s*VERDICT\s*:/i.test(line));
  if (at < 0)
    return {
      verdict: 'fail',
      reasons: `The verifier gave no "VERDICT: pass" or "VERDICT: fail" line. Its answer: ${text.trim().slice(0, 2000)}`,
    };
  const match = /VERDICT\s*:\s*\**\s*(pass|fail)/i.exec(lines[at]!);
  const verdict = match?.[1]?.toLowerCase() === 'pass' ? 'pass' : 'fail';
  const before = lines.slice(0, at).join('\n').trim();
  const after = [lines[at]!.replace(/^.*?VERDICT\s*:\s*\**\s*(pass|fail)\**\s*[-:—]?\s*/i, ''), ...lines.slice(at + 1)]
    .join('\n')
    .trim();
  return { verdict, reasons: [before, after].filter(Boolean).join('\n') };
}

export function verifierPrompt(input: {
  item: string;
  task: string;
  handoff: string;
  changes: string;
  round: number;
}): string {
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

/** What the verify rounds of one item need from the launcher that runs them. */
export interface VerifyContext {
  agents: SwarmAgents;
  /** The item as this attempt knows it now: its rounds, its last verdict, the verifier of a round cut short. */
  item(): SwarmItem;
  /** Reports a change of the item (and applies it to what `item()` returns). */
  tell(report: AttemptProgress): void;
  worker: SwarmAgent;
  /** The worker's folder (its worktree, or the workspace). */
  root: string;
  /** Whether `root` is in a git repository (diffs for the verifier). */
  inRepo: boolean;
  /** The commit an isolated worker started from. */
  base?: string;
  maxRounds: number;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * The item's own worktree (nobody else writes there): what a verifier changes in it is put back after its
   * verdict. Absent in the shared workspace, where the sandbox keeps a verifier's shell read-only instead.
   */
  worktree?: string;
  /** Says something about the item to the person watching (a log line). */
  warn?(message: string): void;
  /** Starts the round's verifier, or says why it could not. */
  spawnVerifier(): SwarmAgent | string;
  /** The item's end as a result. */
  result(outcome: ItemResult['outcome'], reason: string): ItemResult;
}

/** The verifier of the round in progress, when it can go on (a round cut short by a crash or a rate limit). */
function verifierInProgress(c: VerifyContext): SwarmAgent | undefined {
  const id = c.item().verifierId;
  const found = id !== undefined ? c.agents.agent(id) : undefined;
  return found && !found.busy ? found : undefined;
}

/**
 * Runs verify rounds; returns the attempt's end when the item did not pass (a fail, or a rate limit that puts
 * it back in the queue), undefined when it passed. A round cut short goes on with its own verifier next time.
 */
export async function verifyRounds(c: VerifyContext): Promise<Attempt | undefined> {
  const failed = (outcome: ItemResult['outcome'], reason: string): Attempt => ({
    kind: 'done',
    result: c.result(outcome, reason),
  });
  while (c.item().verdict !== 'pass') {
    const s = c.item();
    if (s.rounds >= c.maxRounds) return failed('failed', `failed verification after ${s.rounds} round(s)`);
    // A round counts once its verdict is in: a round cut short by a crash runs again on resume.
    const round = s.rounds + 1;
    c.tell({ kind: 'verifying', round });
    let verifier = verifierInProgress(c);
    let prompt: string | undefined;
    // A new round, or one whose verifier never got its task (a crash right after it was created).
    if (!verifier || verifier.messages.length === 0) {
      const changes = await describeChanges(c.worker.messages, c.root, c.inRepo, c.base);
      if (!verifier) {
        const spawned = c.spawnVerifier();
        if (typeof spawned === 'string') return failed('failed', `no verifier started: ${spawned}`);
        verifier = spawned;
        c.tell({ kind: 'verifier', verifierId: verifier.id });
      }
      prompt = verifierPrompt({ item: s.item, task: s.prompt ?? s.item, handoff: c.worker.lastText, changes, round });
    }
    // A verifier that had answered before a crash is not asked again.
    const answered = prompt === undefined && verifier.status !== 'failed' && endsWithHandoff(verifier.messages);
    let text = verifier.lastText;
    if (!answered) {
      const mark = c.worktree !== undefined ? await markWork(c.worktree) : undefined;
      const check = await c.agents.run(verifier.id, prompt, c.signal, c.timeoutMs);
      const undone = mark && c.worktree !== undefined ? await restoreWork(c.worktree, mark) : [];
      if (undone.length > 0)
        c.warn?.(
          `verifier ${verifier.id} changed ${undone.join(', ')} while checking ${s.item}; murmur put the work back as the worker left it`,
        );
      const limited = rateLimited(check);
      if (limited) return limited;
      if (check.status !== 'completed') {
        return failed(
          check.status === 'aborted' ? 'aborted' : 'failed',
          `the verifier ended ${check.status}${check.reason ? `: ${check.reason}` : ''}`,
        );
      }
      text = check.text;
    }
    const verdict = parseVerdict(text);
    c.tell({ kind: 'verdict', round, verdict: verdict.verdict, reasons: verdict.reasons, verifierId: verifier.id });
    // Its verdict is recorded: the verifier leaves memory (its row stays for the report and the saved state).
    c.agents.release?.(verifier.id);
    if (verdict.verdict === 'pass') return undefined;
    if (round >= c.maxRounds) {
      const { reasons } = verdict;
      const kept = reasons.length > REASON_CHARS ? `${reasons.slice(0, REASON_CHARS - 1)}…` : reasons;
      return failed('failed', `failed verification after ${round} round(s): ${kept}`);
    }
    const rework = await c.agents.run(c.worker.id, reworkPrompt(verdict.reasons, round), c.signal, c.timeoutMs);
    // Limited mid-rework: back in the queue; the next attempt continues the worker, then verifies anew.
    const limited = rateLimited(rework);
    if (limited) return limited;
    if (rework.status !== 'completed')
      return failed(rework.status === 'aborted' ? 'aborted' : 'failed', rework.reason ?? rework.status);
  }
  return undefined;
}
