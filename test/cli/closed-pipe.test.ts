// The closed-stdout rule of every command: EPIPE ends the command quietly with 0, unless the command listens for
// stdout's errors itself (mcp serve shuts down; a scheduled run saves its session when its scheduler is killed).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { exitQuietlyOnClosedStdout } from '../../cli/closed-pipe.js';

function epipe(): NodeJS.ErrnoException {
  return Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
}

describe('a closed stdout', () => {
  it('ends the command with status 0 on EPIPE', () => {
    const stream = new EventEmitter() as NodeJS.WriteStream;
    const exits: number[] = [];
    exitQuietlyOnClosedStdout(stream, (code) => exits.push(code));
    stream.emit('error', epipe());
    expect(exits).toEqual([0]);
  });

  it('leaves it to the command when the command listens for stdout errors itself', () => {
    const stream = new EventEmitter() as NodeJS.WriteStream;
    const exits: number[] = [];
    const seen: string[] = [];
    exitQuietlyOnClosedStdout(stream, (code) => exits.push(code));
    stream.on('error', (error: NodeJS.ErrnoException) => seen.push(error.code!));
    stream.emit('error', epipe());
    expect(exits).toEqual([]);
    expect(seen).toEqual(['EPIPE']);
  });

  it('does not hide another write error', () => {
    const stream = new EventEmitter() as NodeJS.WriteStream;
    exitQuietlyOnClosedStdout(stream, () => undefined);
    expect(() => stream.emit('error', Object.assign(new Error('disk full'), { code: 'ENOSPC' }))).toThrow('disk full');
  });
});
