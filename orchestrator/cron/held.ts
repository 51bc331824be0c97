// A session held at a call that needed a person: `held.json` in the session folder names the calls. On
// resume the transcript is cut before the assistant message that made them and that message is replayed as
// the model's next answer, so the same call goes through the permission check again — now with a person to
// ask — and runs, instead of being marked interrupted.
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { ModelProvider } from '../models/provider.js';
import type { SessionStore } from '../session.js';
import type { AssistantMessage, Message } from '../types.js';
import type { HeldCall } from './hold-asker.js';

/** A run held for a person exits with this status (the scheduler and the console read it as held, not failed). */
export const HELD_EXIT_CODE = 75;

export const HELD_FILE = 'held.json';
/** Ties a session to the scheduled run that started it. */
export const SCHEDULED_FILE = 'scheduled.json';

export interface ScheduledMarker {
  taskId: string;
  runId: string;
  /** The state folder whose cron store holds the run. */
  home: string;
  workspace: string;
}

export function writeHeld(sessionDir: string, calls: readonly HeldCall[]): void {
  writeFileAtomic.sync(join(sessionDir, HELD_FILE), `${JSON.stringify({ calls }, null, 1)}\n`);
}

export function readHeld(sessionDir: string): HeldCall[] {
  const file = join(sessionDir, HELD_FILE);
  if (!existsSync(file)) return [];
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { calls?: HeldCall[] }).calls ?? [];
  } catch {
    return [];
  }
}

/** Keeps the record of what was held, under another name, once a resume has replayed it. */
export function markHeldResumed(sessionDir: string): void {
  const file = join(sessionDir, HELD_FILE);
  if (existsSync(file)) renameSync(file, join(sessionDir, 'held.resumed.json'));
}

export function readScheduledMarker(sessionDir: string): ScheduledMarker | undefined {
  const file = join(sessionDir, SCHEDULED_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ScheduledMarker;
  } catch {
    return undefined;
  }
}

export interface Replay {
  /** Per agent: the conversation length at which the held message is answered again, and the message. */
  byAgent: Map<string, { at: number; message: AssistantMessage }>;
  /** Called once every held message has been replayed (the held record can then be retired). */
  onDone?: () => void;
}

/**
 * Cuts each held agent's transcript before the assistant message holding its held call (the file is replaced
 * atomically) and returns what to replay. An agent whose message cannot be found is left to the ordinary repair.
 */
export function prepareReplay(session: SessionStore, calls: readonly HeldCall[]): Replay {
  const byAgent = new Map<string, { at: number; message: AssistantMessage }>();
  const saved: (HeldCall & { replay?: { at: number; message: AssistantMessage } })[] = calls.map((c) => ({ ...c }));
  const cuts: [string, Message[]][] = [];
  for (const call of saved) {
    const known = byAgent.get(call.agentId);
    if (known) {
      call.replay = known;
      continue;
    }
    const { messages } = session.readTranscript(call.agentId);
    const index = messages.findLastIndex(
      (m: Message) => m.role === 'assistant' && m.toolCalls.some((c) => c.id === call.callId),
    );
    // Cut by an earlier resume that did not get going: the message was kept in held.json.
    const previous = (call as { replay?: { at: number; message: AssistantMessage } }).replay;
    if (index < 0) {
      if (previous) byAgent.set(call.agentId, previous);
      continue;
    }
    const { usage: _usage, ...message } = messages[index] as AssistantMessage;
    const kept = messages.slice(0, index);
    call.replay = { at: kept.length, message };
    byAgent.set(call.agentId, call.replay);
    cuts.push([call.agentId, kept]);
  }
  // Keep the messages before cutting the transcripts, so a resume that fails to start loses nothing.
  writeHeld(session.dir, saved);
  for (const [agentId, kept] of cuts) session.replaceTranscript(agentId, kept);
  return { byAgent };
}

/** A provider that answers a held agent's next request with its held message once, then defers to `inner`. */
export function replayingProvider(inner: ModelProvider, replay: Replay): ModelProvider {
  return {
    name: inner.name,
    capabilities: inner.capabilities,
    async complete(request, signal) {
      const held = replay.byAgent.get(request.agent.id);
      // Its first request since the cut (a resume note may have joined the conversation meanwhile).
      if (held && request.messages.length >= held.at) {
        replay.byAgent.delete(request.agent.id);
        if (replay.byAgent.size === 0) replay.onDone?.();
        return { ok: true, message: structuredClone(held.message) };
      }
      return inner.complete(request, signal);
    },
  };
}
