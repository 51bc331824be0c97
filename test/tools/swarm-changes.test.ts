// What a worker changed, for its verifier: write and edit calls count whichever argument name carried the path
// (the tools accept `file_path` as well as `path`): each tool reports the file it changed in its result's details.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../orchestrator/types.js';
import { changedPaths, describeChanges } from '../../swarm/changes.js';
import type { RuntimeTool } from '../../tools/contract.js';
import { editTool, readTool, writeTool } from '../../tools/workspace-tools.js';
import { call, contextFor, removeDir, tempDir, writeTree } from './helpers.js';

let root: string;

beforeEach(async () => {
  root = await tempDir();
});

afterEach(async () => {
  await removeDir(root);
});

/** Runs the calls with the real tools and records the conversation the loop would keep. */
async function workerConversation(
  calls: Array<{ tool: RuntimeTool; args: Record<string, unknown> }>,
): Promise<Message[]> {
  const ctx = contextFor(root);
  const messages: Message[] = [{ role: 'user', content: 'Change the files' }];
  let id = 0;
  for (const { tool, args } of calls) {
    const callId = `call-${++id}`;
    messages.push({
      role: 'assistant',
      text: '',
      toolCalls: [{ id: callId, name: tool.def.name, arguments: JSON.stringify(args) }],
      stopReason: 'tool_calls',
    });
    const result = await call(tool, ctx, args);
    messages.push({
      role: 'tool',
      toolCallId: callId,
      toolName: tool.def.name,
      content: result.content,
      isError: result.isError === true,
      details: result.details,
    });
  }
  return messages;
}

describe('changed files of a worker', () => {
  it('counts write and edit calls that named the file as file_path', async () => {
    writeTree(root, { 'src/a.ts': 'export const a = 1;\n' });
    const messages = await workerConversation([
      { tool: writeTool, args: { file_path: 'src/new.ts', content: 'export const fresh = true;\n' } },
      { tool: readTool, args: { file_path: 'src/a.ts' } },
      { tool: editTool, args: { file_path: 'src/a.ts', old_string: 'a = 1', new_string: 'a = 2' } },
      { tool: writeTool, args: { path: 'notes.md', content: 'done\n' } },
      // A failed call changed nothing.
      { tool: editTool, args: { file_path: 'src/missing.ts', old_string: 'x', new_string: 'y' } },
    ]);
    expect(changedPaths(messages, root)).toEqual([
      path.join(root, 'src/new.ts'),
      path.join(root, 'src/a.ts'),
      path.join(root, 'notes.md'),
    ]);
    const text = await describeChanges(messages, root, false);
    expect(text.split('\n')[0]).toBe('Files changed: src/new.ts, src/a.ts, notes.md');
    expect(text).toContain('Edited src/a.ts');
  });

  it('shows the git diff of files edited through file_path', async () => {
    writeTree(root, { 'a.txt': 'one\n' });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'start');
    const messages = await workerConversation([
      { tool: readTool, args: { file_path: 'a.txt' } },
      { tool: editTool, args: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } },
    ]);
    const text = await describeChanges(messages, root, true);
    expect(text).toContain('Files changed: a.txt');
    expect(text).toContain('-one');
    expect(text).toContain('+two');
  });
});
