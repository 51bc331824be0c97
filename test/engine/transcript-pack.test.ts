// Packed transcripts (README "State on disk"): swarm items' messages share the session's transcripts-<n>.jsonl,
// other agents keep agents/<id>/transcript.jsonl; every reader gets an agent's whole transcript from either, a cut
// line marks it damaged until a repair replaces it, and a session written before packs still reads.
import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendPool } from '../../orchestrator/append-pool.js';
import { readSessionTranscripts, SessionStore } from '../../orchestrator/session.js';
import { TranscriptWriter } from '../../orchestrator/transcript-writer.js';
import { packedFinalMessages } from '../../orchestrator/transcript-pack.js';
import type { Message } from '../../orchestrator/types.js';
import { workspacePerTest } from './helpers.js';

const workspace = workspacePerTest('murmur-pack-');

const user = (text: string): Message => ({ role: 'user', content: text });
const answer = (text: string): Message => ({ role: 'assistant', text, toolCalls: [], stopReason: 'end' }) as Message;

describe('packed transcripts', () => {
  it('writes swarm items to one pack and other agents to their own files, and reads both back', async () => {
    const session = SessionStore.create(path.join(workspace.dir, '.murmur'), 'packed');
    const writer = new TranscriptWriter((id) => session.transcriptPath(id), new AppendPool(), session.transcriptPack);
    writer.append('a-1', user('Do one'), 's-1');
    writer.append('a-2', user('Do two'), 's-1');
    writer.append('main', user('start'));
    writer.append('a-2', answer('did two'), 's-1');
    writer.append('a-1', answer('did one'), 's-1');
    await writer.flush();

    expect(readdirSync(session.dir).filter((name) => name.startsWith('transcripts-'))).toEqual(['transcripts-1.jsonl']);
    expect(existsSync(session.agentDir('a-1'))).toBe(false);
    expect(existsSync(session.transcriptPath('main'))).toBe(true);
    const read = readSessionTranscripts(session.dir, ['a-1', 'a-2', 'main']);
    expect(read.get('a-1')).toEqual({ messages: [user('Do one'), answer('did one')], damaged: false });
    expect(read.get('a-2')!.messages).toEqual([user('Do two'), answer('did two')]);
    expect(read.get('main')!.messages).toEqual([user('start')]);
    expect(writer.lossOf('a-1')).toBeUndefined();
    expect(await packedFinalMessages(session.dir, new Set(['a-1', 'a-2']))).toEqual(
      new Map([
        ['a-1', 'did one'],
        ['a-2', 'did two'],
      ]),
    );
  });

  it('marks a cut last line damaged, and a repair in the next pack replaces the transcript', () => {
    const home = path.join(workspace.dir, '.murmur');
    const first = SessionStore.create(home, 'cut');
    mkdirSync(first.dir, { recursive: true });
    appendFileSync(first.transcriptPack, '{"agent":"a-1","message":{"role":"user","content":"Do one"}}\n');
    appendFileSync(first.transcriptPack, '{"agent":"a-1","message":{"role":"assis');
    writeFileSync(path.join(first.dir, 'state.json'), '{}');
    expect(first.readTranscript('a-1')).toEqual({ messages: [user('Do one')], damaged: true });

    // The next process appends to a pack of its own: the cut one is never continued.
    const resumed = SessionStore.open(home, 'cut');
    expect(path.basename(resumed.transcriptPack)).toBe('transcripts-2.jsonl');
    resumed.replaceTranscript('a-1', [user('Do one'), answer('did one')], true);
    expect(resumed.readTranscript('a-1')).toEqual({ messages: [user('Do one'), answer('did one')], damaged: false });
  });

  it('still reads the layout before packs: one file per agent, continued by pack lines after a resume', () => {
    const session = SessionStore.create(path.join(workspace.dir, '.murmur'), 'old');
    mkdirSync(session.agentDir('a-3'), { recursive: true });
    writeFileSync(session.transcriptPath('a-3'), `${JSON.stringify(user('Do three'))}\n`);
    expect(session.readTranscript('a-3').messages).toEqual([user('Do three')]);
    appendFileSync(session.transcriptPack, `{"agent":"a-3","message":${JSON.stringify(answer('did three'))}}\n`);
    expect(session.readTranscript('a-3')).toEqual({
      messages: [user('Do three'), answer('did three')],
      damaged: false,
    });
    expect(session.readTranscript('a-9')).toEqual({ messages: [], damaged: false });
  });
});
