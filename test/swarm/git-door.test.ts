// murmur's own git is not a door: whatever a repository's config, hooks and attributes name as a program to run,
// the git commands murmur runs on the host (swarm/git.ts) run none of it, still do their work, and hand git no
// secret from murmur's environment. Each planted program is a spy that writes a marker file (with the environment
// it saw) when run: after murmur's commands the marker folder must be empty.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../swarm/git.js';
import { removeDir, tempDir } from './helpers.js';

const WHO = ['-c', 'user.name=murmur', '-c', 'user.email=murmur@localhost', '-c', 'commit.gpgsign=false'];
const HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'post-index-change',
  'reference-transaction',
  'pre-auto-gc',
  'post-rewrite',
];

let dir: string;
let repo: string;
let markers: string;
let spy: string;

/** The stage is set with git as an agent would run it: murmur's whole environment, nothing switched off. */
function plain(cwd: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
  });
}

function write(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

function config(cwd: string, key: string, value: string): void {
  plain(cwd, ['config', key, value]);
}

/** An executable that runs the spy under `name`. */
function spyScript(file: string, name: string): void {
  write(file, `#!/bin/sh\nexec '${spy}' ${name} "$@"\n`);
  chmodSync(file, 0o755);
}

function ranPrograms(): string[] {
  return readdirSync(markers).map((file) => file.replace(/-\d+$/, ''));
}

beforeEach(async () => {
  dir = await tempDir('murmur-git-door-');
  repo = path.join(dir, 'repo');
  markers = path.join(dir, 'markers');
  spy = path.join(dir, 'spy');
  mkdirSync(markers);
  // Marks that it ran (with the environment it got), then passes content through as a filter or textconv would.
  write(
    spy,
    `#!/bin/sh\nname=$1; shift\nenv > '${markers}'/"$name-$$"\ncase "$name" in hook-*|fsmonitor|transport) exit 0;; esac\n` +
      'if [ $# -gt 0 ] && [ -f "$1" ]; then exec cat "$1"; fi\nexec cat\n',
  );
  chmodSync(spy, 0o755);
  mkdirSync(repo);
  plain(repo, ['init', '-q', '-b', 'main']);
  write(path.join(repo, '.gitattributes'), '*.dat filter=x\n*.proc filter=p\n*.eq filter=a=b\n*.txt diff=x\n');
  write(path.join(repo, 'a.txt'), 'one\n');
  write(path.join(repo, 'b.dat'), 'hello\n');
  write(path.join(repo, 'c.proc'), 'process me\n');
  write(path.join(repo, 'd.eq'), 'equal\n');
  plain(repo, ['add', '-A']);
  plain(repo, [...WHO, 'commit', '-q', '-m', 'base']);
});

afterEach(async () => {
  await removeDir(dir);
});

async function ok(cwd: string, args: string[], input?: string): Promise<string> {
  const result = await git(cwd, args, input);
  expect(result, `git ${args.join(' ')}: ${result.stderr}`).toMatchObject({ ok: true });
  return result.stdout;
}

/** The commands murmur runs (worktree.ts, changes.ts, queue/worker.ts, queue/apply.ts), checking each did its work. */
async function exercise(): Promise<void> {
  const base = (await ok(repo, ['rev-parse', 'HEAD'])).trim();
  write(path.join(repo, 'a.txt'), 'one\ntwo\n');
  write(path.join(repo, 'b.dat'), 'hello again\n');
  write(path.join(repo, 'new/c.txt'), 'c\n');
  expect((await ok(repo, ['status', '--porcelain', '--untracked-files=all'])).split('\n').filter(Boolean)).toEqual([
    ' M a.txt',
    ' M b.dat',
    '?? new/c.txt',
  ]);
  expect((await git(repo, ['diff', '--quiet'])).exitCode).toBe(1);
  expect(await ok(repo, ['diff', '--no-color', base, '--', 'a.txt'])).toContain('\n one\n+two\n');
  await ok(repo, ['add', '-A']);
  expect(await ok(repo, ['diff', '--cached'])).toContain('+hello again\n');
  expect((await git(repo, ['diff', '--cached', '--quiet'])).exitCode).toBe(1);
  await ok(repo, [...WHO, 'commit', '-q', '--no-verify', '-m', 'x']);
  // Without --no-verify too: pre-commit, prepare-commit-msg and commit-msg stay off all the same.
  await ok(repo, [...WHO, 'commit', '-q', '--allow-empty', '-m', 'y']);
  const head = (await ok(repo, ['rev-parse', 'HEAD'])).trim();
  expect(await ok(repo, ['log', '-2', '--format=%s'])).toBe('y\nx\n');
  expect((await git(repo, ['diff', '--quiet'])).exitCode).toBe(0);
  expect((await git(repo, ['diff', '--quiet', base, head])).exitCode).toBe(1);
  const patch = await ok(repo, ['diff', '--binary', '--no-color', base, head]);
  expect(patch).toContain('diff --git a/a.txt b/a.txt\n');
  expect(patch).toContain('\n one\n+two\n');
  expect(patch).toContain('-hello\n+hello again\n');
  expect(patch).toContain('diff --git a/new/c.txt b/new/c.txt\nnew file mode 100644\n');
  // A file with a filter attribute is committed as it is in the work tree, and checked out as it is committed.
  expect(await ok(repo, ['cat-file', '-p', `${head}:b.dat`])).toBe('hello again\n');
  const wt1 = path.join(dir, 'wt1');
  const wt2 = path.join(dir, 'wt2');
  await ok(repo, ['worktree', 'add', '-b', 'br', wt1, base]);
  expect(readFileSync(path.join(wt1, 'a.txt'), 'utf8')).toBe('one\n');
  expect(readFileSync(path.join(wt1, 'b.dat'), 'utf8')).toBe('hello\n');
  expect(readFileSync(path.join(wt1, 'c.proc'), 'utf8')).toBe('process me\n');
  await ok(repo, ['worktree', 'add', '--detach', wt2, head]);
  expect(readFileSync(path.join(wt2, 'b.dat'), 'utf8')).toBe('hello again\n');
  write(path.join(wt2, 'a.txt'), 'scribble\n');
  write(path.join(wt2, 'junk/j.txt'), 'junk\n');
  await ok(wt2, ['reset', '-q', '--hard', head]);
  await ok(wt2, ['clean', '-q', '-fd']);
  expect(readFileSync(path.join(wt2, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  expect(existsSync(path.join(wt2, 'junk'))).toBe(false);
  expect((await git(wt1, ['apply', '--check', '--reverse', '--whitespace=nowarn', '-'], patch)).ok).toBe(false);
  await ok(wt1, ['apply', '--check', '--whitespace=nowarn', '-'], patch);
  await ok(wt1, ['apply', '--whitespace=nowarn', '-'], patch);
  expect(readFileSync(path.join(wt1, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  expect(readFileSync(path.join(wt1, 'b.dat'), 'utf8')).toBe('hello again\n');
  await ok(wt1, ['apply', '--check', '--reverse', '--whitespace=nowarn', '-'], patch);
  const untracked = await git(wt1, ['diff', '--no-color', '--no-index', '--', '/dev/null', 'new/c.txt']);
  expect(untracked).toMatchObject({ exitCode: 1, stdout: expect.stringContaining('+c\n') as string });
  await ok(repo, ['worktree', 'remove', '--force', wt1]);
  await ok(repo, ['worktree', 'remove', '--force', wt2]);
  await ok(repo, ['branch', '-D', 'br']);
  expect(existsSync(wt1) || existsSync(wt2)).toBe(false);
}

describe("murmur's git runs no program the repository names", () => {
  it('no hook in .git/hooks', async () => {
    for (const hook of HOOKS) spyScript(path.join(repo, '.git/hooks', hook), `hook-${hook}`);
    await exercise();
    expect(ranPrograms()).toEqual([]);
  });

  it('no hook in a folder core.hooksPath names', async () => {
    for (const hook of HOOKS) spyScript(path.join(dir, 'planted', hook), `hook-${hook}`);
    config(repo, 'core.hooksPath', path.join(dir, 'planted'));
    await exercise();
    expect(ranPrograms()).toEqual([]);
  });

  it('no core.fsmonitor hook', async () => {
    spyScript(path.join(dir, 'fsmonitor'), 'fsmonitor');
    config(repo, 'core.fsmonitor', path.join(dir, 'fsmonitor'));
    await exercise();
    expect(ranPrograms()).toEqual([]);
  });

  it('no clean, smudge or process filter, required or not, whatever its name; files pass through unchanged', async () => {
    config(repo, 'filter.x.clean', `'${spy}' clean`);
    config(repo, 'filter.x.smudge', `'${spy}' smudge`);
    config(repo, 'filter.x.required', 'true');
    config(repo, 'filter.p.process', `'${spy}' process`);
    config(repo, 'filter.p.required', 'true');
    config(repo, 'filter.a=b.clean', `'${spy}' clean-eq`);
    config(repo, 'filter.a=b.smudge', `'${spy}' smudge-eq`);
    await exercise();
    write(path.join(repo, 'd.eq'), 'equal again\n');
    await ok(repo, ['add', '-A']);
    expect(await ok(repo, ['cat-file', '-p', ':d.eq'])).toBe('equal again\n');
    expect(ranPrograms()).toEqual([]);
  });

  it("still runs a filter the user's own config defines (git-lfs), unless the repository redefines it", async () => {
    const globalConfig = path.join(dir, 'user.gitconfig');
    write(globalConfig, '[filter "up"]\n\tclean = tr a-z A-Z\n[filter "x"]\n\tclean = tr a-z A-Z\n');
    write(path.join(repo, '.gitattributes'), '*.up filter=up\n*.dat filter=x\n');
    write(path.join(repo, 'e.up'), 'shout\n');
    write(path.join(repo, 'b.dat'), 'quiet\n');
    config(repo, 'filter.x.clean', `'${spy}' clean`);
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = globalConfig;
    try {
      await ok(repo, ['add', '-A']);
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
    expect(await ok(repo, ['cat-file', '-p', ':e.up'])).toBe('SHOUT\n');
    expect(await ok(repo, ['cat-file', '-p', ':b.dat'])).toBe('quiet\n');
    expect(ranPrograms()).toEqual([]);
  });

  it('no diff.external, diff.<driver>.command or diff.<driver>.textconv; diffs stay plain patches', async () => {
    config(repo, 'diff.external', `'${spy}' diff-external`);
    config(repo, 'diff.x.textconv', `'${spy}' textconv`);
    await exercise();
    config(repo, 'diff.x.command', `'${spy}' diff-command`);
    write(path.join(repo, 'a.txt'), 'three\n');
    expect(await ok(repo, ['diff', '--no-color'])).toContain('-one\n-two\n+three\n');
    expect(ranPrograms()).toEqual([]);
  });

  it('no filter from a file the config includes only on some branch or git dir (the worktree murmur adds)', async () => {
    write(
      path.join(repo, '.git/config'),
      readFileSync(path.join(repo, '.git/config'), 'utf8') +
        '[includeIf "onbranch:br"]\n\tpath = on-branch.cfg\n[includeIf "gitdir:**/worktrees/**"]\n\tpath = ../../planted/in-worktree.cfg\n',
    );
    write(path.join(repo, '.git/on-branch.cfg'), `[filter "x"]\n\tsmudge = '${spy}' smudge-onbranch\n`);
    write(path.join(dir, 'planted/in-worktree.cfg'), `[filter "p"]\n\tsmudge = '${spy}' smudge-gitdir\n`);
    await exercise();
    expect(ranPrograms()).toEqual([]);
  });

  it('no filter of a nested repository git looks into (status and add run status inside every gitlink)', async () => {
    const nested = path.join(repo, 'nested');
    mkdirSync(nested);
    plain(nested, ['init', '-q']);
    write(path.join(nested, '.gitattributes'), '* filter=n\n');
    write(path.join(nested, 'n.txt'), 'n\n');
    plain(nested, ['add', '-A']);
    plain(nested, [...WHO, 'commit', '-q', '-m', 'n']);
    plain(repo, ['add', 'nested']);
    plain(repo, [...WHO, 'commit', '-q', '-m', 'gitlink']);
    config(nested, 'filter.n.clean', `'${spy}' clean-nested`);
    // A stat change makes git compare the file's content, through its clean filter.
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(path.join(nested, 'n.txt'), later, later);
    await exercise();
    expect(ranPrograms()).toEqual([]);
  });

  it('no transport, even one the repository allows (ext:: runs a command)', async () => {
    config(repo, 'protocol.ext.allow', 'always');
    config(repo, 'remote.o.url', `ext::${spy} transport`);
    expect((await git(repo, ['ls-remote', 'o'])).ok).toBe(false);
    expect(ranPrograms()).toEqual([]);
  });
});

describe("murmur's git environment", () => {
  const planted = {
    OPENAI_API_KEY: 'sk-secret',
    DATABASE_URL: 'postgres://u:p@db/prod',
    GIT_DIR: '/nonexistent/.git',
    GIT_INDEX_FILE: '/nonexistent/index',
    GIT_CONFIG_PARAMETERS: "'core.hookspath'='/tmp'",
  };
  let saved: Record<string, string | undefined>;
  beforeEach(() => {
    saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]));
    Object.assign(process.env, planted);
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** What a program git starts sees (a shell alias is one: murmur never uses aliases, the test reads env with one). */
  async function gitsEnv(options?: { env: Record<string, string> }): Promise<string> {
    const result = await git(repo, ['-c', 'alias.show-env=!env', 'show-env'], undefined, options);
    expect(result.ok, result.stderr).toBe(true);
    return result.stdout;
  }

  it('holds no secret and no repository variable of murmur, only what git needs', async () => {
    const env = await gitsEnv();
    expect(env).not.toContain('sk-secret');
    expect(env).not.toContain('postgres://');
    expect(env).not.toContain('/nonexistent');
    expect(env).not.toMatch(/^OPENAI_API_KEY=|^DATABASE_URL=/m);
    expect(env).toMatch(/^PATH=/m);
    expect(env).toMatch(/^GIT_TERMINAL_PROMPT=0$/m);
    expect((await ok(repo, ['rev-parse', '--show-toplevel'])).trim()).toBe(repo);
    spyScript(path.join(repo, '.git/hooks/post-commit'), 'hook-post-commit');
    await ok(repo, [...WHO, 'commit', '-q', '--allow-empty', '-m', 'e']);
    expect(ranPrograms()).toEqual([]);
  });

  it('takes what a caller passes for one call', async () => {
    expect(await gitsEnv({ env: { GIT_INDEX_FILE: path.join(dir, 'scratch-index') } })).toContain(
      `GIT_INDEX_FILE=${path.join(dir, 'scratch-index')}\n`,
    );
  });
});
