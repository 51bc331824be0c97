// Bad values say what is wrong (issue "nothing lost…", item 8): each is exit 2 before anything starts, naming the
// value and what is accepted — in murmur.toml, on the command line, in the environment, in .mcp.json, in items,
// and in a queue job.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOB_FORMAT, parseItemJob } from '../../swarm/queue/job.js';
import { murmur, workspace } from './helpers.js';

const SCRIPT = JSON.stringify({ agents: [{ turns: [{ text: 'done' }] }] });

function swarmArgs(extra: string[] = []): string[] {
  return ['swarm', '--template', 'Do {{item}}', '--items', 'a', 'b', '--model', 'scripted:s.json', ...extra];
}

describe('bad values', () => {
  it.each([
    ['permissionMode = "god"', /"permissionMode": "god" is not accepted; use manual, auto or yolo/],
    ['effort = "max"', /"effort": "max" is not accepted; use low, medium or high/],
    ['[limits]\nagentTimeout = "soon"', /"limits\.agentTimeout": "soon" is not a duration; give seconds .* "90s"/],
    ['maxTurns = "x"', /"maxTurns": Expected integer \(got "x"\)/],
  ])('murmur.toml %s: exit 2 naming the key, the value and what is accepted', async (toml, message) => {
    const cwd = workspace({ 'murmur.toml': `${toml}\n`, 's.json': SCRIPT });
    const result = await murmur(['run', '--model', 'scripted:s.json', 'task'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('--max-concurrency and MURMUR_SWARM_MAX_CONCURRENCY take digits only (1e3 is refused, not read as 1000)', async () => {
    const cwd = workspace({ 's.json': SCRIPT });
    const flag = await murmur(swarmArgs(['--max-concurrency', '1e3']), { cwd });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--max-concurrency must be a positive whole number, got "1e3"');
    const env = await murmur(swarmArgs(), { cwd, env: { MURMUR_SWARM_MAX_CONCURRENCY: '1e3' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('MURMUR_SWARM_MAX_CONCURRENCY="1e3"');
  });

  it('a MURMUR_QUEUE of blanks only is refused instead of silently running in this process', async () => {
    const cwd = workspace({ 's.json': SCRIPT });
    const result = await murmur(swarmArgs(), { cwd, env: { MURMUR_QUEUE: '   ' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/MURMUR_QUEUE="   " holds only blanks; give a Redis URL .* or unset it/);
  });

  it('a .mcp.json that is not JSON: exit 2 naming the file (its servers would all be missing)', async () => {
    const cwd = workspace({ 's.json': SCRIPT, '.mcp.json': '{ "mcpServers": { "x": ' });
    const result = await murmur(['run', '--model', 'scripted:s.json', 'task'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\.mcp\.json: is not valid JSON/);
  });

  it('items with a NUL or bytes that are not UTF-8 are refused, naming the item', async () => {
    const cwd = workspace({ 's.json': SCRIPT });
    writeFileSync(join(cwd, 'nul.txt'), 'a\nb\u0000c\n');
    writeFileSync(join(cwd, 'latin1.txt'), Buffer.from([0x61, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const nul = await murmur(
      ['swarm', '--template', 'Do {{item}}', '--items-file', 'nul.txt', '--model', 'scripted:s.json'],
      { cwd },
    );
    expect(nul.code).toBe(2);
    expect(nul.stderr).toMatch(/items\[1\] \("b\\u0000c"\) holds a NUL character/);
    const latin1 = await murmur(
      ['swarm', '--template', 'Do {{item}}', '--items-file', 'latin1.txt', '--model', 'scripted:s.json'],
      { cwd },
    );
    expect(latin1.code).toBe(2);
    expect(latin1.stderr).toMatch(/items\[1\] \("caf\uFFFD"\) holds bytes that are not valid UTF-8/);
  });

  it('a queue job naming a role this worker does not know is refused as a bad job, naming the role', () => {
    const job = {
      format: JOB_FORMAT,
      runId: 'r',
      swarmId: 's-1',
      index: 0,
      item: 'a',
      prompt: 'Do a',
      base: 'abcdef1',
      subdir: '',
      model: 'scripted',
      verify: false,
      maxRounds: 1,
      itemTimeoutMs: 1000,
      maxModelRequests: 4,
      profile: { name: 'wizard', role: 'wizard', prompt: 'x' },
    };
    const parsed = parseItemJob(job);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toMatch(
      /"profile\.role" "wizard" is not a role this worker knows \(explore, worker, verifier\)/,
    );
  });
});
