// Packed transcripts: the messages of a swarm item's agent go, with every other item's, to the session's
// `transcripts-<n>.jsonl` (n: one more for each process that runs the session), one line each, the agent first —
// `{"agent":"a-7","message":{…}}` — so a million items make a few files instead of a million folders. A repaired
// transcript is written there again after `{"agent":"a-7","reset":true}`, which drops what came before. An agent's
// transcript is its own `agents/<id>/transcript.jsonl` (agents outside swarms, and every agent of a session from
// before packs), then its lines in the packs in order.
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { fileNumbers, numberedFile } from './numbered-files.js';
import type { Message } from './types.js';

export interface Transcript {
  messages: Message[];
  /** Its last line was cut (a killed process); everything before is intact. */
  damaged: boolean;
}

const PACK_STEM = 'transcripts';
const CHUNK = 1 << 20;
const AGENT_PREFIX = '{"agent":"';

/** The session's packs, oldest first. */
export function packPaths(dir: string): string[] {
  return fileNumbers(dir, PACK_STEM).map((n) => numberedFile(dir, PACK_STEM, n));
}

/** The pack this process appends to: one past the newest, so a pack cut by a killed process is never continued. */
export function nextPackPath(dir: string): string {
  return numberedFile(dir, PACK_STEM, (fileNumbers(dir, PACK_STEM).at(-1) ?? 0) + 1);
}

export function packLine(agentId: string, message: Message): string {
  return `${AGENT_PREFIX}${agentId}","message":${JSON.stringify(message)}}\n`;
}

export function resetLine(agentId: string): string {
  return `${AGENT_PREFIX}${agentId}","reset":true}\n`;
}

/** The agent a pack line belongs to, read from its start (a cut line still names it), or undefined. */
function agentOf(line: string): string | undefined {
  if (!line.startsWith(AGENT_PREFIX)) return undefined;
  const end = line.indexOf('"', AGENT_PREFIX.length);
  return end < 0 ? undefined : line.slice(AGENT_PREFIX.length, end);
}

/** Calls `visit` with each line of a file, read a chunk at a time; `complete` is false for a last line without \n. */
function forEachLineSync(path: string, visit: (line: string, complete: boolean) => void): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (let read = readSync(fd, buffer, 0, CHUNK, null); read > 0; read = readSync(fd, buffer, 0, CHUNK, null)) {
      const lines = (rest + decoder.write(buffer.subarray(0, read))).split('\n');
      rest = lines.pop()!;
      for (const line of lines) visit(line, true);
    }
    rest += decoder.end();
    if (rest) visit(rest, false);
  } finally {
    closeSync(fd);
  }
}

/** As forEachLineSync, without blocking the event loop (the console reads packs while it serves). */
async function forEachLine(path: string, visit: (line: string) => void): Promise<void> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const lines = (rest + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
      rest = lines.pop()!;
      for (const line of lines) visit(line);
    }
    rest += decoder.end();
    if (rest) visit(rest);
  } finally {
    await handle.close();
  }
}

/** Adds one pack line to the transcripts being read (a reset empties the agent's). */
function takeLine(line: string, complete: boolean, transcript: Transcript): void {
  let entry: { reset?: boolean; message?: Message };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    transcript.damaged = true;
    return;
  }
  if (entry.reset) {
    transcript.messages = [];
    transcript.damaged = false;
    return;
  }
  // After a cut line only a reset (a repair) follows; anything else would be out of order.
  if (transcript.damaged || !entry.message) return;
  transcript.messages.push(entry.message);
  if (!complete) transcript.damaged = true;
}

/** The packed lines of the `wanted` agents, onto their transcripts (one pass over each pack). */
export function readPacked(dir: string, wanted: ReadonlyMap<string, Transcript>): void {
  for (const pack of packPaths(dir)) {
    forEachLineSync(pack, (line, complete) => {
      const agent = agentOf(line);
      const transcript = agent === undefined ? undefined : wanted.get(agent);
      if (transcript) takeLine(line, complete, transcript);
    });
  }
}

/** The last assistant text of each of `ids` in the packs (what the console shows as an agent's answer). */
export async function packedFinalMessages(dir: string, ids: ReadonlySet<string>): Promise<Map<string, string>> {
  const finals = new Map<string, string>();
  for (const pack of packPaths(dir)) {
    await forEachLine(pack, (line) => {
      const agent = agentOf(line);
      if (agent === undefined || !ids.has(agent)) return;
      if (line.endsWith('"reset":true}')) finals.delete(agent);
      if (!line.includes('"assistant"')) return;
      try {
        const message = (JSON.parse(line) as { message?: Message }).message;
        if (message?.role === 'assistant' && message.text.trim()) finals.set(agent, message.text.trim());
      } catch {
        // A line cut by a killed process.
      }
    });
  }
  return finals;
}
