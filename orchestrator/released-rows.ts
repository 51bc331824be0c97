// Settled agents whose rows the session's settled log holds, out of memory: what stays of each is that its id is
// taken and what it used (the reports add it to its item's row), 41 bytes an `a-N` agent instead of its row's
// 300 or so. Anything else of such an agent is read back from the log (settled-log.ts).
import type { Usage } from './types.js';

const FIELDS = 5;
const ID = /^a-(\d+)$/;

export class ReleasedRows {
  /** By N of `a-N`: 1 when released. */
  private taken = new Uint8Array(0);
  /** By N of `a-N`: input, output, cacheRead, cacheWrite, cost (NaN: none). */
  private spent = new Float64Array(0);
  /** Ids not of the form `a-N` (rare: agents named by hand). */
  private readonly others = new Map<string, Usage>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(agentId: string, usage: Usage): void {
    const n = numberOf(agentId);
    if (n === undefined) {
      if (!this.others.has(agentId)) this.count++;
      this.others.set(agentId, { ...usage });
      return;
    }
    this.grow(n + 1);
    if (this.taken[n] === 0) this.count++;
    this.taken[n] = 1;
    const at = n * FIELDS;
    // A row saved by an older murmur may lack a count: it reads as 0, never NaN.
    const { input = 0, output = 0, cacheRead = 0, cacheWrite = 0, cost = Number.NaN } = usage;
    this.spent.set([input, output, cacheRead, cacheWrite, cost], at);
  }

  /** The agent is back in memory (its row changed): it is no longer here. */
  delete(agentId: string): void {
    const n = numberOf(agentId);
    if (n === undefined) {
      if (this.others.delete(agentId)) this.count--;
    } else if (this.taken[n] === 1) {
      this.taken[n] = 0;
      this.count--;
    }
  }

  has(agentId: string): boolean {
    const n = numberOf(agentId);
    return n === undefined ? this.others.has(agentId) : this.taken[n] === 1;
  }

  usageOf(agentId: string): Usage | undefined {
    const n = numberOf(agentId);
    if (n === undefined) return this.others.get(agentId);
    if (this.taken[n] !== 1) return undefined;
    const [at, s] = [n * FIELDS, this.spent];
    const usage: Usage = { input: s[at]!, output: s[at + 1]!, cacheRead: s[at + 2]!, cacheWrite: s[at + 3]! };
    if (!Number.isNaN(s[at + 4])) usage.cost = s[at + 4]!;
    return usage;
  }

  *ids(): Generator<string> {
    yield* this.others.keys();
    for (let n = 0; n < this.taken.length; n++) if (this.taken[n] === 1) yield `a-${n}`;
  }

  private grow(size: number): void {
    if (size <= this.taken.length) return;
    const capacity = Math.max(size, this.taken.length * 2, 1024);
    const taken = new Uint8Array(capacity);
    taken.set(this.taken);
    const spent = new Float64Array(capacity * FIELDS);
    spent.set(this.spent);
    this.taken = taken;
    this.spent = spent;
  }
}

function numberOf(agentId: string): number | undefined {
  const match = ID.exec(agentId);
  if (!match) return undefined;
  const n = Number(match[1]);
  // `a-01` is another id than `a-1`: it is kept by its name.
  return String(n) === match[1] && n < 2 ** 31 ? n : undefined;
}
