// What a worker's tool calls say it changed: only when every call was a file tool or a read-only one.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../orchestrator/types.js';
import { filesTouchedByTools } from '../../swarm/touched-files.js';

const call = (name: string, id: string): Message => ({
  role: 'assistant',
  text: '',
  toolCalls: [{ id, name, arguments: '{}' }],
  stopReason: 'tool_calls',
});
const result = (toolName: string, id: string, details?: unknown, isError = false): Message =>
  ({ role: 'tool', toolCallId: id, toolName, content: [{ type: 'text', text: 'ok' }], details, isError }) as Message;

describe('filesTouchedByTools', () => {
  it('names the files write and edit changed, after reads and searches', () => {
    const messages = [
      call('read', '1'),
      result('read', '1'),
      call('grep', '2'),
      result('grep', '2'),
      call('edit', '3'),
      result('edit', '3', { path: 'src/a.ts' }),
      call('write', '4'),
      result('write', '4', { path: 'new/b.ts' }),
      call('edit', '5'),
      result('edit', '5', { path: 'src/c.ts' }, true),
    ];
    expect(filesTouchedByTools(messages, '/w')).toEqual(['/w/src/a.ts', '/w/new/b.ts']);
  });

  it('cannot tell after a shell, a subagent or an MCP tool (asked for, even without a result)', () => {
    for (const name of ['bash', 'agent', 'mcp_invoke', 'github__create_file']) {
      expect(filesTouchedByTools([call(name, '1')], '/w')).toBeUndefined();
      expect(filesTouchedByTools([call(name, '1'), result(name, '1')], '/w')).toBeUndefined();
    }
  });
});
