// The workspaces a scheduler serves: takes each one's service lock (saying once when another scheduler holds
// it), keeps the locks fresh, marks the runs a stopped scheduler left "running" as interrupted, and lets go.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../host/command-parts.js';
import { refreshServiceLock, releaseServiceLock, takeServiceLock, withLock } from '../host/lock.js';
import type { CronStore } from './store.js';

export interface ServedWorkspacesOptions {
  /** The workspaces to serve; asked again at every claim (new workspaces join). */
  stores: () => CronStore[];
  clock: Clock;
  log: (line: string) => void;
  /** The ids of this service's own runs going now: never taken for runs left behind. */
  ownRunIds: () => ReadonlySet<string>;
}

export class ServedWorkspaces {
  /** Workspaces (state folders) this service holds the lock of, and the ones another process holds. */
  private readonly held = new Map<string, CronStore>();
  private readonly refused = new Set<string>();
  /** Workspaces that could not be claimed, with the last problem logged. */
  private readonly failing = new Map<string, string>();

  constructor(private readonly options: ServedWorkspacesOptions) {}

  /** The state folders served now. */
  get homes(): string[] {
    return [...this.held.keys()];
  }

  /** The stores of the workspaces served now. */
  served(): IterableIterator<CronStore> {
    return this.held.values();
  }

  /** Takes the lock of every listed workspace not yet held; says once which process holds a refused one. */
  claim(): void {
    const { log } = this.options;
    let stores: CronStore[];
    try {
      stores = this.options.stores();
    } catch (error) {
      log(`cannot read the list of workspaces: ${(error as Error).message}`);
      return;
    }
    for (const store of stores) {
      if (this.held.has(store.home)) continue;
      try {
        this.claimOne(store);
        this.failing.delete(store.home);
      } catch (error) {
        // One unwritable or unreachable workspace (permissions, a read-only disk, a lock held too long) does
        // not stop the others; it is tried again at the next check.
        const message = (error as Error).message;
        // Once per distinct problem, not at every check.
        if (this.failing.get(store.home) !== message)
          log(`workspace ${store.workspace}: cannot be served now: ${message}`);
        this.failing.set(store.home, message);
      }
    }
  }

  private claimOne(store: CronStore): void {
    const { log } = this.options;
    // A workspace deleted since it was listed: nothing to serve (and its folders must not be made again).
    if (!existsSync(store.workspace)) {
      if (!this.refused.has(store.home)) {
        this.refused.add(store.home);
        log(`workspace ${store.workspace} no longer exists; skipped`);
      }
      return;
    }
    const taken = withLock(store.lockFile, () => takeServiceLock(store.serviceLockFile, this.options.clock.now()));
    if (!taken.ok) {
      if (!this.refused.has(store.home)) {
        this.refused.add(store.home);
        log(
          `workspace ${store.workspace}: another scheduler (pid ${taken.holder.pid}${taken.holder.host ? ` on ${taken.holder.host}` : ''}) serves it; skipped`,
        );
      }
      return;
    }
    this.refused.delete(store.home);
    this.held.set(store.home, store);
    const marked = this.markInterrupted(store);
    log(
      `serving ${store.workspace}${marked > 0 ? ` (${marked} run${marked === 1 ? '' : 's'} left by a stopped scheduler marked interrupted)` : ''}`,
    );
  }

  private markInterrupted(store: CronStore): number {
    let ids: string[];
    try {
      ids = readdirSync(join(store.dir, 'history'))
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -5));
    } catch {
      return 0;
    }
    let marked = 0;
    const now = this.options.clock.now();
    for (const id of ids) {
      if (!store.history(id).some((r) => r.state === 'running')) continue;
      try {
        marked += this.markInterruptedRuns(store, id, now);
      } catch (error) {
        this.options.log(`task ${id}: cannot mark its unfinished run interrupted: ${(error as Error).message}`);
      }
    }
    return marked;
  }

  private markInterruptedRuns(store: CronStore, id: string, now: number): number {
    let marked = 0;
    store.mutateHistory(id, (runs) => {
      // This service's own runs (a workspace served again after its lock file went away) are not left behind.
      const mine = this.options.ownRunIds();
      for (const run of runs) {
        if (run.state !== 'running' || mine.has(run.id)) continue;
        run.state = 'interrupted';
        run.ended = now;
        run.summary = `the scheduler stopped during this run${run.sessionId ? `; continue it with: murmur resume ${run.sessionId}` : ''}`;
        marked++;
      }
    });
    return marked;
  }

  /** Refreshes the service lock of every held workspace; one taken over by another scheduler is let go. */
  heartbeat(): void {
    for (const [home, store] of this.held) {
      if (refreshServiceLock(store.serviceLockFile)) continue;
      this.held.delete(home);
      this.options.log(
        `workspace ${store.workspace}: its lock was taken over by another scheduler; no longer served here`,
      );
    }
  }

  /** Lets every held lock go. */
  releaseAll(): void {
    for (const store of this.held.values()) releaseServiceLock(store.serviceLockFile);
    this.held.clear();
  }
}
