// A run's events as an async iterator that never holds the run up: what a slow reader keeps, and what it loses
// (streamed pieces first, then the oldest events), counted in `dropped`.
import { describe, expect, it } from 'vitest';
import { EventBus, type EventInput, type MurmurEvent } from '../../orchestrator/events.js';
import { EventStream } from '../../host/event-stream.js';

const delta = (text: string): EventInput => ({ type: 'message.delta', agentId: 'main', text });
const turn = (n: number): EventInput => ({ type: 'turn.start', agentId: 'main', turn: n });

async function drain(stream: EventStream): Promise<MurmurEvent[]> {
  const out: MurmurEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

const label = (event: MurmurEvent) =>
  event.type === 'message.delta' ? event.text : event.type === 'turn.start' ? `turn ${event.turn}` : event.type;

describe('EventStream', () => {
  it('hands a waiting reader each event as it comes, and ends after the last', async () => {
    const bus = new EventBus(() => 1, 'run-1');
    const stream = new EventStream(bus);
    const reading = drain(stream);
    bus.emit(turn(1));
    bus.emit(delta('a'));
    stream.end();
    bus.emit(turn(2));
    const events = await reading;
    expect(events.map(label)).toEqual(['turn 1', 'a']);
    expect(events.every((event) => event.sessionId === 'run-1')).toBe(true);
  });

  it('when full, drops new streamed pieces, then the oldest waiting pieces, then the oldest events', async () => {
    const bus = new EventBus(() => 1);
    const stream = new EventStream(bus, { maxBuffered: 3 });
    bus.emit(delta('a'));
    bus.emit(turn(1));
    bus.emit(delta('b'));
    bus.emit(delta('c')); // full: a new piece is dropped
    bus.emit(turn(2)); // takes the place of the oldest piece, a
    bus.emit(turn(3)); // takes the place of b
    bus.emit(turn(4)); // no piece left: the oldest event, turn 1, goes
    stream.end();
    expect((await drain(stream)).map(label)).toEqual(['turn 2', 'turn 3', 'turn 4']);
    expect(stream.dropped).toBe(4);
  });

  it('keeps memory bounded over many events nobody reads, and forgets the positions of pieces read', async () => {
    const bus = new EventBus(() => 1);
    const stream = new EventStream(bus, { maxBuffered: 100 });
    for (let i = 0; i < 50_000; i++) bus.emit(i % 2 === 0 ? delta(String(i)) : turn(i));
    stream.end();
    const kept = await drain(stream);
    expect(kept).toHaveLength(100);
    expect(kept.every((event) => event.type === 'turn.start')).toBe(true);
    expect(label(kept.at(-1)!)).toBe('turn 49999');
    expect(stream.dropped).toBe(49_900);
  });

  it('a reader that stops (return) unsubscribes and keeps nothing', async () => {
    const bus = new EventBus(() => 1);
    const stream = new EventStream(bus);
    bus.emit(turn(1));
    await stream.return();
    bus.emit(turn(2));
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(bus.wants('turn.start')).toBe(false);
  });
});
