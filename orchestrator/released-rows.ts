// Settled agents whose rows the session's settled log holds, out of memory: what stays of each is that its id is
// taken and what it used (the reports add it to its item's row), 1 byte an `a-N` agent plus 24 for its usage (four
// token counts of 4 bytes and a cost of 8) instead of its row's 300 or so. Usage is kept in pages of 65,536 agents,
// made when a page first holds usage: growing never copies what is kept, and agents that used nothing (a scripted
// model) cost no page. Anything else of such an agent is read back from the log (settled-log.ts).
import type { Usage } from './types.js';

const PAGE = 1 << 16;
const ID = /^a-(\d+)$/;
const MAX_TOKENS = 2 ** 32 - 1;

/** One page's usage: token counts (input, output, cacheRead, cacheWrite) and cost (NaN: none). */
interface UsagePage {
  tokens: Uint32Array;
  cost: Float64Array;
}

export class ReleasedRows {
  /** By N of `a-N`: 1 when released. */
  private taken = new Uint8Array(0);
  /** By N of `a-N`, in pages of PAGE: what it used (a page that is absent holds none). */
  private readonly pages: (UsagePage | undefined)[] = [];
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
    // A row saved by an older murmur may lack a count: it reads as 0, never NaN.
    const { input = 0, output = 0, cacheRead = 0, cacheWrite = 0, cost = Number.NaN } = usage;
    const counts = [input, output, cacheRead, cacheWrite];
    let page = this.pages[Math.floor(n / PAGE)];
    if (!page && counts.every((c) => c === 0) && Number.isNaN(cost)) return;
    page ??= this.pages[Math.floor(n / PAGE)] = newPage();
    const at = n % PAGE;
    page.tokens.set(
      counts.map((c) => Math.min(MAX_TOKENS, Math.max(0, Math.round(c)))),
      at * 4,
    );
    page.cost[at] = cost;
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
    const page = this.pages[Math.floor(n / PAGE)];
    if (!page) return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    const [at, t] = [n % PAGE, page.tokens];
    const usage: Usage = {
      input: t[at * 4]!,
      output: t[at * 4 + 1]!,
      cacheRead: t[at * 4 + 2]!,
      cacheWrite: t[at * 4 + 3]!,
    };
    if (!Number.isNaN(page.cost[at])) usage.cost = page.cost[at]!;
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
    this.taken = taken;
  }
}

function newPage(): UsagePage {
  const cost = new Float64Array(PAGE);
  // Nothing said: no cost (a page made for an agent's usage holds the others that come later).
  cost.fill(Number.NaN);
  return { tokens: new Uint32Array(PAGE * 4), cost };
}

function numberOf(agentId: string): number | undefined {
  const match = ID.exec(agentId);
  if (!match) return undefined;
  const n = Number(match[1]);
  // `a-01` is another id than `a-1`: it is kept by its name.
  return String(n) === match[1] && n < 2 ** 31 ? n : undefined;
}
