// How often a crashed MCP server may be started again: the first restart at once, the next ones after a
// doubling delay, and at most `maxRestarts` within a sliding window, so a server that dies on every start
// does not turn each tool call into a process launch.

export interface RestartPolicy {
  /** Restarts allowed within `windowMs`. */
  maxRestarts: number;
  windowMs: number;
  /** Delay before the second restart in the window; it doubles after that. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  maxRestarts: 3,
  windowMs: 10 * 60_000,
  backoffMs: 1_000,
  maxBackoffMs: 30_000,
};

export type RestartVerdict = { allowed: true } | { allowed: false; reason: string };

export class RestartBudget {
  private restarts: number[] = [];

  constructor(
    private readonly policy: RestartPolicy,
    private readonly now: () => number,
  ) {}

  private recent(): number[] {
    const since = this.now() - this.policy.windowMs;
    this.restarts = this.restarts.filter((at) => at > since);
    return this.restarts;
  }

  /** The delay a restart waits after a crash, given the restarts already made in the window. */
  delayFor(restartsSoFar: number): number {
    if (restartsSoFar === 0) return 0;
    return Math.min(this.policy.backoffMs * 2 ** (restartsSoFar - 1), this.policy.maxBackoffMs);
  }

  /** May the server be started again, `crashedAt` being when it last went down? */
  check(crashedAt: number): RestartVerdict {
    const recent = this.recent();
    const now = this.now();
    if (recent.length >= this.policy.maxRestarts) {
      const again = Math.max(0, recent[0]! + this.policy.windowMs - now);
      return {
        allowed: false,
        reason: `it was restarted ${recent.length} times in the last ${formatMs(this.policy.windowMs)}, the most allowed; it is not started again for ${formatMs(again)}`,
      };
    }
    const wait = crashedAt + this.delayFor(recent.length) - now;
    if (wait > 0) return { allowed: false, reason: `it is restarted on a call made in ${formatMs(wait)} or later` };
    return { allowed: true };
  }

  record(): void {
    this.restarts.push(this.now());
  }

  get count(): number {
    return this.recent().length;
  }
}

export function formatMs(ms: number): string {
  if (ms < 1_000) return `${Math.ceil(ms)} ms`;
  if (ms < 120_000) return `${Math.ceil(ms / 1_000)} s`;
  return `${Math.ceil(ms / 60_000)} min`;
}
