// A session model as JSON text, made in slices that yield to the event loop: a swarm of 50,000 items is a model
// of about 15 MB, and one JSON.stringify of it would hold every other request of the console for 100 ms or more.
import { Slicer } from './event-log.js';
import type { SessionModel, SwarmTimeline } from './session-model.js';

/** Array elements serialized at once. */
const CHUNK = 5_000;

type Parts = string[];

/** The same value as JSON.stringify(model), up to the order of keys (the big lists come last). */
export async function modelJson(model: SessionModel): Promise<string> {
  const { agents, swarms, ...rest } = model;
  const slicer = new Slicer();
  const out: Parts = [opened(rest), '"agents":'];
  await list(out, agents, slicer);
  out.push(',"swarms":[');
  for (const [i, swarm] of swarms.entries()) {
    if (i > 0) out.push(',');
    await swarmJson(out, swarm, slicer);
  }
  out.push(']}');
  return out.join('');
}

async function swarmJson(out: Parts, swarm: SwarmTimeline, slicer: Slicer): Promise<void> {
  const { items, changes, marks, capacity, agentIds, rounds, verdicts, tokens, verifiers, verifierIds, ...rest } =
    swarm;
  out.push(opened(rest));
  const lists: [string, readonly unknown[]][] = [
    ['items', items],
    ['changes', changes],
    ['marks', marks],
    ['capacity', capacity],
    ['agentIds', agentIds],
    ['rounds', rounds],
    ['verdicts', verdicts],
    ['tokens', tokens],
    ['verifiers', verifiers],
    ['verifierIds', verifierIds],
  ];
  for (const [i, [key, values]] of lists.entries()) {
    out.push(`${i > 0 ? ',' : ''}"${key}":`);
    await list(out, values, slicer);
  }
  out.push('}');
}

/** `{"a":1,"b":2,` — an object's JSON left open for more keys. */
function opened(value: object): string {
  const json = JSON.stringify(value);
  return json === '{}' ? '{' : `${json.slice(0, -1)},`;
}

/** A list, CHUNK elements at a time (each element small: an agent row, a number, an item name). */
async function list(out: Parts, values: readonly unknown[], slicer: Slicer): Promise<void> {
  out.push('[');
  for (let i = 0; i < values.length; i += CHUNK) {
    if (i > 0) out.push(',');
    out.push(JSON.stringify(values.slice(i, i + CHUNK)).slice(1, -1));
    if (slicer.due()) await slicer.pause();
  }
  out.push(']');
}
