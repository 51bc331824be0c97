// Holding a run at a request that needs a person, for a run nobody watches: a scheduled run, a run or swarm the web
// console started (`murmur run|swarm --hold`), and a resume that the console started after a person answered there.
// The calls of one batch are gathered, then the session is saved at that call with the status
// `waiting-for-approval` (held.json names the calls, with what their cards show), a scheduled run's record says so,
// one JSON line is printed and the process exits 75 (HELD_EXIT_CODE).
import type { Asker } from '../orchestrator/permissions/asker.js';
import { holdAsker, type HeldCall } from '../orchestrator/cron/hold-asker.js';
import { readScheduledMarker, writeHeld } from '../orchestrator/cron/held.js';
import { recordHeldRun } from '../orchestrator/cron/resumed.js';
import { HELD_EXIT_CODE } from '../orchestrator/cron/held.js';
import type { SessionStore } from '../orchestrator/session.js';
import type { TerminalRun } from './terminal-run.js';
import { boolFlag, type ParsedArgs } from './args.js';

export interface HoldingRun {
  asker: Asker;
  /** Whether a request was held (the run then never finishes: the process exits once the session is saved). */
  holding(): boolean;
  /** The run the held session belongs to, once it is open. */
  attach(terminal: TerminalRun): void;
}

/**
 * `session`: the held session (default: the run's own, once it is open). `record`: update a scheduled run's record
 * here (a resume's; a scheduled run's own scheduler records its exit).
 */
export function holdingRun(session: SessionStore | undefined, options: { record: boolean }): HoldingRun {
  const held: HeldCall[] = [];
  let holding = false;
  let terminal: TerminalRun | undefined;
  const hold = (call: HeldCall) => {
    held.push(call);
    if (holding) return;
    holding = true;
    // Parallel calls of the same batch may be held too: gather them, then save the session and leave.
    setTimeout(() => {
      void (async () => {
        const saved = session ?? terminal?.engine.session;
        if (!saved) throw new Error('a held run needs its session');
        writeHeld(saved.dir, held);
        terminal?.engine.markEnded('waiting-for-approval');
        await terminal?.close();
        const summary = held.map((h) => h.summary).join('; ');
        const marker = options.record ? readScheduledMarker(saved.dir) : undefined;
        if (marker) recordHeldRun(marker, saved.id, summary);
        process.stdout.write(`${JSON.stringify({ status: 'held', held: summary, sessionId: saved.id })}\n`, () =>
          process.exit(HELD_EXIT_CODE),
        );
      })();
    }, 50);
  };
  return {
    asker: holdAsker(hold),
    holding: () => holding,
    attach(run) {
      terminal = run;
    },
  };
}

/** `murmur run|swarm --hold` (hidden; the web console starts its work so): the hold, and `--json` on. */
export function commandHold(args: ParsedArgs): HoldingRun | undefined {
  if (!boolFlag(args, 'hold')) return undefined;
  args.flags.json = true;
  return holdingRun(undefined, { record: false });
}
