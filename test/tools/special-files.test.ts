// A named pipe in the workspace would block a reader forever: read and read_media_file refuse it at once.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMediaFileTool, readTool } from '../../tools/workspace-tools.js';

describe('files that are not files', () => {
  it('refuses a named pipe instead of waiting for a writer', async () => {
    const root = mkdtempSync(join(tmpdir(), 'murmur-fifo-'));
    execFileSync('mkfifo', [join(root, 'pipe.png')]);
    const ctx = { agentId: 'a-1', role: 'worker', cwd: root, callId: 'c' };
    for (const tool of [readTool, readMediaFileTool]) {
      const result = await tool.impl(ctx, { path: 'pipe.png' } as never, new AbortController().signal, () => undefined);
      expect(result.isError).toBe(true);
      expect(result.content[0]).toMatchObject({
        text: 'pipe.png is a named pipe, not a file; only regular files can be read.',
      });
    }
  });
});
