// murmur's own run state stays out of the agents' searches and out of version control.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../orchestrator/session.js';
import { TranscriptWriter } from '../../orchestrator/transcript-writer.js';
import { globTool, grepTool } from '../../tools/workspace-tools.js';
import type { RuntimeTool } from '../../tools/contract.js';

async function call(tool: RuntimeTool, cwd: string, args: object): Promise<string> {
  const result = await tool.impl(
    { agentId: 'a-1', role: 'worker', cwd, callId: 'c-1' },
    args as never,
    new AbortController().signal,
    () => undefined,
  );
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('the run state folder', () => {
  it('is ignored by grep and glob, yet a spilled output named explicitly is still searched', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'murmur-state-'));
    writeFileSync(join(cwd, 'notes.txt'), 'needle here\n');
    const session = SessionStore.create(join(cwd, '.murmur'));
    const transcripts = new TranscriptWriter((id) => session.transcriptPath(id));
    transcripts.append('a-1', { role: 'user', content: 'find the needle' });
    writeFileSync(join(session.toolOutputsDir, 'c-9.txt'), 'a needle in a spilled output\n');
    await Promise.all([session.flush(), transcripts.flush()]);
    expect(readFileSync(join(cwd, '.murmur', '.gitignore'), 'utf8')).toMatch(/^sessions\/$/m);

    const found = await call(grepTool, cwd, { pattern: 'needle' });
    expect(found).toContain('notes.txt');
    expect(found).not.toContain('.murmur');
    expect(await call(globTool, cwd, { pattern: '**/*.txt' })).not.toContain('c-9.txt');
    const spilled = await call(grepTool, cwd, {
      pattern: 'needle',
      path: join('.murmur', 'sessions', session.id, 'tool-outputs', 'c-9.txt'),
      output_mode: 'content',
    });
    expect(spilled).toContain('a needle in a spilled output');
  });

  it("leaves a git repository's status as it was, its own .gitignore included; an older one is brought up to date", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'murmur-state-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    git('init', '-q');
    writeFileSync(join(cwd, 'a.txt'), 'a\n');
    mkdirSync(join(cwd, '.murmur'));
    const old = "# murmur's run state: not for version control, nor for the agents' searches\nsessions/\nworktrees/\n";
    writeFileSync(join(cwd, '.murmur', '.gitignore'), old);
    const session = SessionStore.create(join(cwd, '.murmur'));
    await session.flush();
    expect(git('status', '--porcelain', '--untracked-files=all')).toBe('?? a.txt\n');
    // A .gitignore a person wrote there is theirs.
    writeFileSync(join(cwd, '.murmur', '.gitignore'), 'sessions/\n');
    await SessionStore.create(join(cwd, '.murmur')).flush();
    expect(readFileSync(join(cwd, '.murmur', '.gitignore'), 'utf8')).toBe('sessions/\n');
  });
});
