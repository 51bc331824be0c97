// The run's interruptions while it runs: the calls that wait for a person, and the answers given for them. The
// permission setup asks here first (an answer given to a resume settles its call without asking anyone), and holds
// a call here when nobody can answer — or when the run is stopped while a person was being asked, so the question
// survives the abort. The run's state is saved from `pending()`.
import { interruptionId, type Interruption, type InterruptionAnswer } from '../../protocol/interruptions.js';

export type Found = { ok: true; interruption: Interruption } | { ok: false; error: string };

export class InterruptionDesk {
  private readonly list: Interruption[];

  /**
   * `saved`: the run's interruptions so far (with the answers given since). `holdsWhenNobody`: a call that needs a
   * person with nobody to ask is held here (the run ends `waiting`) instead of being settled by policy.
   */
  constructor(
    saved: readonly Interruption[] = [],
    readonly holdsWhenNobody = false,
    private readonly now: () => number = Date.now,
    private readonly onChange?: () => void,
  ) {
    this.list = saved.map((i) => ({ ...i }));
  }

  private find(agentId: string, callId: string, kind?: Interruption['kind']): Interruption | undefined {
    return this.list.find(
      (i) => i.agentId === agentId && i.callId === callId && (kind === undefined || i.kind === kind),
    );
  }

  private drop(entry: Interruption): void {
    this.list.splice(this.list.indexOf(entry), 1);
    this.onChange?.();
  }

  /** The answer given for this call, taken once: the interruption leaves (its call runs now). */
  take(agentId: string, callId: string, kind: Interruption['kind']): InterruptionAnswer | undefined {
    const entry = this.find(agentId, callId, kind);
    if (!entry?.answer) return undefined;
    this.drop(entry);
    return entry.answer;
  }

  /** Holds a call for a person; asked again without an answer, it keeps the time it was first asked. */
  hold(interruption: Interruption): void {
    const earlier = this.find(interruption.agentId, interruption.callId);
    const at = earlier?.at ?? interruption.at ?? this.now();
    if (earlier) this.list.splice(this.list.indexOf(earlier), 1);
    const { answer: _answer, answeredAt: _at, ...asked } = interruption;
    this.list.push({ ...asked, at });
    this.onChange?.();
  }

  /** What the run waits for now, oldest first (answers given but not yet used included). */
  pending(): Interruption[] {
    return this.list.map((i) => ({ ...i }));
  }
}

/**
 * Finds the interruption a caller names: `agentId/callId`, or a call id alone when only one agent made it. The error
 * names what was given and what the run waits for.
 */
export function findInterruption(list: readonly Interruption[], name: string): Found {
  const slash = name.lastIndexOf('/');
  const matches = slash > 0 ? list.filter((i) => interruptionId(i) === name) : list.filter((i) => i.callId === name);
  if (matches.length === 1) return { ok: true, interruption: matches[0]! };
  const known = list.map((i) => `${interruptionId(i)} (${i.summary})`).join('; ');
  if (matches.length > 1)
    return {
      ok: false,
      error: `call ${JSON.stringify(name)} is waiting in ${matches.length} agents; name it as AGENT/CALL: ${known}`,
    };
  return {
    ok: false,
    error:
      list.length === 0
        ? `nothing waits for an answer (got ${JSON.stringify(name)})`
        : `no call ${JSON.stringify(name)} waits for an answer; waiting: ${known}`,
  };
}
