// A finished swarm session with a big events.jsonl, written by the test (no model run): every item's worker takes
// turns that call a tool which streams output, as a long scripted swarm does. Written in 1 MB blocks so an
// 80 MB log costs the test about a second.
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface BigLog {
  dir: string;
  file: string;
  items: number;
  events: number;
  bytes: number;
}

const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 };

/** Writes sessions/ID/{state.json,events.jsonl} under `home`, at least `targetBytes` of events. */
export function writeBigSession(home: string, id: string, targetBytes: number, turnsPerItem = 10): BigLog {
  const dir = path.join(home, 'sessions', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'state.json'),
    JSON.stringify({
      version: 1,
      id,
      kind: 'swarm',
      createdAt: 1_000,
      updatedAt: 2_000,
      cwd: home,
      model: 'scripted:x',
      status: 'completed',
      agents: [],
      tasks: [],
      usage,
    }),
  );
  const file = path.join(dir, 'events.jsonl');
  const fd = openSync(file, 'w');
  let block: string[] = [];
  let blockChars = 0;
  let bytes = 0;
  let events = 0;
  let ts = 1_000;
  const emit = (event: Record<string, unknown>) => {
    const line = `${JSON.stringify({ ts: ts++, ...event })}\n`;
    block.push(line);
    blockChars += line.length;
    events++;
    if (blockChars >= 1 << 20) flush();
  };
  const flush = () => {
    bytes += writeSync(fd, block.join(''));
    block = [];
    blockChars = 0;
  };
  // An item's events come to about 0.7 KB plus 1.15 KB a turn.
  const items = Math.max(1, Math.ceil(targetBytes / (700 + turnsPerItem * 1_150)));
  const names = Array.from({ length: items }, (_, i) => `src/module-${i}.ts`);
  const output = 'x'.repeat(300);
  try {
    emit({ type: 'run.start', mode: 'swarm', task: 'Migrate every module', model: 'scripted:x' });
    emit({ type: 'swarm.start', swarmId: 'sw-1', description: 'Migrate', role: 'worker', items: names });
    for (let i = 0; i < items; i++) {
      const agentId = `a-${i}`;
      const item = names[i]!;
      emit({ type: 'swarm.item', swarmId: 'sw-1', item, index: i, state: 'launched', agentId, capacity: 8 });
      emit({ type: 'agent.start', agentId, role: 'worker', prompt: `Migrate ${item}`, swarmId: 'sw-1', item });
      for (let turn = 1; turn <= turnsPerItem; turn++) {
        const callId = `c-${i}-${turn}`;
        emit({ type: 'turn.start', agentId, turn });
        emit({ type: 'tool.start', agentId, tool: 'bash', callId, args: `{"command":"npm test -- ${item}"}` });
        emit({ type: 'tool.update', agentId, tool: 'bash', callId, text: `${output}\n${output}` });
        emit({ type: 'tool.end', agentId, tool: 'bash', callId, isError: false, durationMs: 5 });
        emit({ type: 'turn.end', agentId, turn, usage, toolCalls: 1 });
      }
      emit({
        type: 'agent.end',
        agentId,
        role: 'worker',
        status: 'completed',
        usage,
        turns: turnsPerItem,
        toolCalls: turnsPerItem,
        durationMs: 50,
        swarmId: 'sw-1',
        item,
      });
      emit({ type: 'swarm.item', swarmId: 'sw-1', item, index: i, state: 'completed', agentId });
    }
    emit({ type: 'swarm.end', swarmId: 'sw-1', counts: { completed: items }, durationMs: ts - 1_000 });
    emit({ type: 'run.end', status: 'completed', usage });
    flush();
  } finally {
    closeSync(fd);
  }
  return { dir, file, items, events, bytes };
}
