// Attacks from inside an agent's bash, replayed through the installed command (package.json's bin) with a scripted
// model whose agents are the attacker, and checked ON THE HOST afterwards: nothing planted ran (no marker file in a
// host folder outside the workspace; a marker that exists says whether it saw the secrets the test put in murmur's
// environment), nothing planted remains, main did not move, and the legitimate work still lands. Every attack runs as
// root (CI is root) and as an unprivileged user (uid/gid 65534 through setpriv, owning the workspace, HOME and the
// host folder). The attacks: a worktree swarm's items going for the main repository's git dir (hooks, config,
// info/attributes, commondir, their own .git, refs); a sandboxed run going for its repository's .git and the
// workspace's protected files; root's ways out of the sandbox (capabilities, remount, umount /proc, nsenter, nested
// user namespaces, the terminal's session); what the next run trusts (.mcp.json, murmur.toml); the verifier changing
// the work it checks; and the build leaving the bin executable.
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MURMUR_BIN, staleBinReason } from '../murmur-bin.js';
import { bwrapAvailable, probeResult } from './helpers.js';
import {
  type AttackCase,
  type Identity,
  bashAgent,
  cannotRunAs,
  commitAs,
  capsProbeScript,
  developerCommands,
  devGit,
  eventsIn,
  filesIn,
  hostFile,
  identities,
  makeCase,
  murmurAs,
  plantedInGitDir,
  removeCase,
  repoAs,
  revParse,
  runAttackScript,
  SECRET,
  scriptFile,
  takeMarkers,
  toolOutcomes,
  worktreeAttackScript,
} from './attack-helpers.js';

const available = bwrapAvailable();
const IDENTITIES = identities();

beforeAll(() => {
  const stale = staleBinReason();
  if (stale) throw new Error(stale);
  if (!available) return;
  for (const who of IDENTITIES) {
    const reason = cannotRunAs(who);
    if (reason) throw new Error(reason);
  }
});

it('6. npm run build leaves the bin executable', () => {
  expect(statSync(MURMUR_BIN).mode & 0o111, `${MURMUR_BIN} has no execute bit`).not.toBe(0);
});

interface ReportItem {
  item: string;
  outcome: string;
  reason?: string;
  branch?: string;
}

function reportOf(stdout: string): { items: ReportItem[] } | undefined {
  try {
    return JSON.parse(stdout) as { items: ReportItem[] };
  } catch {
    return undefined;
  }
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

/** `.git` is the repository it was: a folder, HEAD on main at the original commit, the same config text. */
function stillTheOriginalGit(c: AttackCase, head: string, config: string | undefined): string[] {
  const dotGit = path.join(c.workspace, '.git');
  if (!existsSync(dotGit) || !lstatSync(dotGit).isDirectory()) return ['.git is no longer a folder'];
  const problems: string[] = [];
  const now = revParse(c, 'HEAD');
  if (now !== head) problems.push(`.git is not the original repository: HEAD is ${now}, not ${head}`);
  const configNow = read(path.join(dotGit, 'config'));
  if (configNow !== config) problems.push(`.git/config is not the original: ${JSON.stringify(configNow)}`);
  return problems;
}

/** A swarm item and what a failure of it must name (a protected path or a ref) when the attack is detected. */
interface WorktreeAttack {
  name: string;
  items: Record<string, RegExp>;
}

/**
 * `murmur run --sandbox` in a fresh repository holding `files`, whose agent runs the attack script in `mode`; the
 * problems seen so far (exit status, the agent's own work missing, markers written during the run).
 */
async function sandboxedRunAttack(
  who: Identity,
  mode: 'plant' | 'replace',
  files: Record<string, string>,
): Promise<{ c: AttackCase; headBefore: string; configBefore: string | undefined; problems: string[] }> {
  const c = await makeCase(who, `run-${mode}`);
  const headBefore = repoAs(c, files);
  const configBefore = read(path.join(c.workspace, '.git', 'config'));
  const attack = hostFile(c, 'attack.sh', runAttackScript(c.payload), 0o755);
  const model = scriptFile(c, { agents: [bashAgent(`sh ${attack} ${mode}`)] });
  const ran = await murmurAs(c, [
    'run',
    'tidy up',
    '--sandbox',
    '--permission-mode',
    'yolo',
    '--model',
    `scripted:${model}`,
    '--json',
  ]);
  const problems: string[] = [];
  if (ran.exitCode !== 0) problems.push(`murmur exited ${ran.exitCode}: ${ran.stderr.trim().slice(0, 300)}`);
  if (!existsSync(path.join(c.workspace, 'work.txt'))) problems.push('the agent did not get to its work (work.txt)');
  problems.push(...takeMarkers(c, 'during the run'));
  return { c, headBefore, configBefore, problems };
}

/**
 * `murmur swarm --verify` over a.txt in the case's workspace: the worker appends `worker-edit`, the verifier runs
 * `verifierCommand` then answers `verdict`; what the command said and the verifier's bash outcomes.
 */
async function verifiedSwarm(c: AttackCase, verifierCommand: string, verdict: string, flags: readonly string[]) {
  const events = path.join(c.host, 'events.jsonl');
  const model = scriptFile(c, {
    agents: [
      bashAgent('echo worker-edit >> $1', { role: 'worker', prompt: 'Edit (\\S+)' }),
      bashAgent(verifierCommand, { role: 'verifier' }, verdict),
    ],
  });
  const ran = await murmurAs(c, [
    'swarm',
    '--verify',
    '--items',
    'a.txt',
    '--template',
    'Edit {{item}}',
    '--permission-mode',
    'yolo',
    '--model',
    `scripted:${model}`,
    '--json',
    '--events',
    events,
    ...flags,
  ]);
  const verifierBash = toolOutcomes(c, eventsIn(events)).filter((o) => o.role === 'verifier' && o.tool === 'bash');
  return { ran, verifierBash };
}

const WORKTREE_ATTACKS: WorktreeAttack[] = [
  {
    name: "hooks in the main repository's git dir (one item also commits its own work)",
    items: { 'hooks.txt': /hooks/, 'hooks-commit.txt': /hooks/ },
  },
  {
    name: 'git config (core.fsmonitor, filter.x + .gitattributes, diff.external, core.hooksPath) and info/attributes',
    items: {
      'fsmonitor.txt': /config/,
      'filter.txt': /config/,
      'diffext.txt': /config/,
      'hookspath.txt': /config/,
      'attributes.txt': /info\/attributes/,
    },
  },
  {
    name: "its worktree pointed at an evil git dir (<common>/worktrees/<own>/commondir, the worktree's .git file)",
    items: { 'commondir.txt': /commondir/, 'dotgit.txt': /\.git\b/ },
  },
  {
    name: 'refs: main and a sibling item branch moved with git update-ref',
    items: { 'refs.txt': /refs\/|\bmain\b|murmur\//, 'victim.txt': /refs\/|\bmain\b|murmur\// },
  },
];

describe.skipIf(!available)('attacks from inside the sandbox, checked on the host', () => {
  describe.each(IDENTITIES)('as $name', (who) => {
    let c: AttackCase | undefined;
    afterEach(async () => {
      if (c) await removeCase(c);
      c = undefined;
    });

    it.each(WORKTREE_ATTACKS)(
      '1. worktree swarm: $name',
      async ({ items }) => {
        c = await makeCase(who, 'worktree');
        const names = Object.keys(items);
        repoAs(c, {
          'README.md': 'hello\n',
          ...Object.fromEntries(names.map((item) => [item, `${item}: original\n`])),
        });
        // Two commits, so main's parent is a commit an attacker can move refs to without writing objects.
        const mainBefore = commitAs(c, { 'README.md': 'hello again\n' }, 'second');
        const attack = hostFile(c, 'attack.sh', worktreeAttackScript(c.payload), 0o755);
        const model = scriptFile(c, {
          agents: [
            // The victim is slow, so its branch exists while refs.txt moves it.
            {
              match: { role: 'worker', prompt: 'Edit victim\\.txt' },
              turns: [
                {
                  latencyMs: 2500,
                  toolCalls: [{ name: 'bash', arguments: { command: `sh ${attack} victim.txt` } }],
                },
                { text: 'done' },
              ],
            },
            bashAgent(`sh ${attack} $1`, { role: 'worker', prompt: 'Edit (\\S+)' }),
          ],
        });
        const ran = await murmurAs(c, [
          'swarm',
          '--sandbox',
          '--isolation',
          'worktree',
          '--items',
          ...names,
          '--template',
          'Edit {{item}}',
          '--permission-mode',
          'yolo',
          '--model',
          `scripted:${model}`,
          '--json',
        ]);
        const problems: string[] = [];
        problems.push(...takeMarkers(c, "during the swarm (murmur's own git on the host)"));
        // Looked at as files, before anything of the developer's runs.
        problems.push(...plantedInGitDir(c, path.join(c.workspace, '.git')));
        const mainAfter = revParse(c, 'refs/heads/main');
        if (mainAfter !== mainBefore) problems.push(`refs/heads/main moved from ${mainBefore} to ${mainAfter}`);
        const head = read(path.join(c.workspace, '.git', 'HEAD'))?.trim();
        if (head !== 'ref: refs/heads/main') problems.push(`the main repository's HEAD is now "${head}"`);

        const report = reportOf(ran.stdout);
        if (!report) problems.push(`no JSON report (exit ${ran.exitCode}): ${ran.stderr.trim().slice(0, 500)}`);
        let allCompleted = report !== undefined;
        for (const [item, naming] of Object.entries(items)) {
          const result = report?.items.find((r) => r.item === item);
          if (!result) {
            if (report) problems.push(`${item}: missing from the report`);
            continue;
          }
          const text = read(path.join(c.workspace, item)) ?? '';
          const edited = text.includes(`edit by ${item}`);
          if (result.outcome === 'completed') {
            if (!edited)
              problems.push(`${item}: completed, but its edit is not in the main tree (${JSON.stringify(text)})`);
            continue;
          }
          allCompleted = false;
          // Detected: it fails naming the path or ref, keeps its branch, and nothing of it is merged.
          if (!naming.test(result.reason ?? ''))
            problems.push(
              `${item}: ${result.outcome} with a reason that names no protected path or ref (${naming}): ${result.reason}`,
            );
          if (!result.branch) problems.push(`${item}: ${result.outcome} without a kept branch in the report`);
          else if (revParse(c, `refs/heads/${result.branch}`).startsWith('(no'))
            problems.push(`${item}: its branch ${result.branch} was not kept`);
          if (edited) problems.push(`${item}: ${result.outcome}, yet its edit was merged`);
        }
        if (report && allCompleted && ran.exitCode !== 0)
          problems.push(`every item completed but murmur exited ${ran.exitCode}: ${ran.stderr.trim().slice(0, 300)}`);

        // The developer's own git on the host, with the secrets in their environment.
        const dev = developerCommands(c);
        problems.push(...takeMarkers(c, 'when the developer ran git status/diff/add/commit/checkout on the host'));
        const failedDev = dev.filter((d) => d.run.status !== 0);
        for (const d of failedDev)
          problems.push(`the developer's ${d.command} failed: ${d.run.stderr.trim().slice(0, 200)}`);
        expect(problems).toEqual([]);
      },
      90_000,
    );

    it('2a. run --sandbox in a repository: .git hooks, config, info/attributes; .gitmodules, .vscode, .envrc, .bashrc', async () => {
      const bashrc = "# the project's bashrc\n";
      const {
        c: made,
        headBefore,
        configBefore,
        problems,
      } = await sandboxedRunAttack(who, 'plant', {
        'README.md': 'hello\n',
        '.bashrc': bashrc,
      });
      c = made;
      problems.push(...plantedInGitDir(c, path.join(c.workspace, '.git')));
      for (const file of ['.gitmodules', '.vscode', '.envrc'])
        if (existsSync(path.join(c.workspace, file))) problems.push(`${file} was created and is still there`);
      const bashrcAfter = read(path.join(c.workspace, '.bashrc'));
      if (bashrcAfter !== bashrc) problems.push(`.bashrc changed: ${JSON.stringify(bashrcAfter)}`);
      problems.push(...stillTheOriginalGit(c, headBefore, configBefore));
      developerCommands(c);
      problems.push(...takeMarkers(c, 'when the developer ran git status/diff/add/commit/checkout on the host'));
      if (revParse(c, 'HEAD~1') !== headBefore)
        problems.push("the developer's commit is not on top of the original history");
      expect(problems).toEqual([]);
    });

    it('2b. run --sandbox in a repository: .git moved aside, a new .git with a planted config and hooks', async () => {
      const {
        c: made,
        headBefore,
        configBefore,
        problems,
      } = await sandboxedRunAttack(who, 'replace', {
        'README.md': 'hello\n',
      });
      c = made;
      problems.push(...stillTheOriginalGit(c, headBefore, configBefore));
      if (existsSync(path.join(c.workspace, '.git')))
        problems.push(...plantedInGitDir(c, path.join(c.workspace, '.git')));
      developerCommands(c);
      problems.push(...takeMarkers(c, 'when the developer ran git status/diff/add/commit/checkout on the host'));
      expect(problems).toEqual([]);
    });

    it("3. root's ways out: capabilities, remount, umount /proc + environ, nsenter to the host's network, nested user namespace, own session", async () => {
      c = await makeCase(who, 'caps');
      let connections = 0;
      const server: Server = createServer((socket) => {
        connections++;
        socket.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as { port: number }).port;
        const probe = hostFile(c, 'caps.sh', capsProbeScript(c, port), 0o755);
        const model = scriptFile(c, { agents: [bashAgent(`sh ${probe}`)] });
        const ran = await murmurAs(c, [
          'run',
          'probe',
          '--sandbox',
          '--permission-mode',
          'yolo',
          '--model',
          `scripted:${model}`,
          '--json',
        ]);
        expect(ran.exitCode, ran.stderr).toBe(0);
        const caps = read(path.join(c.workspace, 'caps.txt')) ?? '';
        const result = probeResult(caps);
        expect.soft(result.capeff, caps).toBe('0000000000000000');
        expect.soft(result.outside, caps).toBe('refused');
        expect.soft(filesIn(c.outside), 'written to the host folder outside the workspace').toEqual([]);
        expect.soft(result.environ, `${caps}\n(${SECRET} read from a process's /proc/<pid>/environ)`).toBe('not-found');
        expect.soft(result.net, caps).not.toBe('connected');
        expect.soft(connections, "connections to the host's 127.0.0.1 from the sandbox").toBe(0);
        expect.soft(result.userns, caps).toBe('refused');
        // --new-session: the command leads a session of its own, so its session id is one of its namespace's pids
        // (0 means the session belongs to a process outside it: murmur's, whose terminal TIOCSTI could write to).
        expect.soft(result.sid, caps).not.toBe('0');
        expect.soft(takeMarkers(c, 'during the probe')).toEqual([]);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    describe('4. what the next run trusts cannot be planted', () => {
      const plantNext = (variant: 'extra-roots' | 'disable', cc: AttackCase) =>
        [
          '#!/bin/sh',
          `printf '{"mcpServers":{"evil":{"command":"%s","args":["mcp-server"]}}}\\n' '${cc.payload}' > .mcp.json && echo "planted .mcp.json" || echo "refused .mcp.json"`,
          variant === 'extra-roots'
            ? `printf '\\n[workspace]\\nextraRoots = ["%s"]\\n' '${cc.outside}' >> murmur.toml && echo "planted extraRoots" || echo "refused murmur.toml"`
            : `printf '[sandbox]\\nenabled = false\\n' > murmur.toml && echo "planted enabled = false" || echo "refused murmur.toml"`,
          'exit 0',
          '',
        ].join('\n');

      it.each([
        { label: '4a.', variant: 'extra-roots' as const },
        { label: '4b.', variant: 'disable' as const },
      ])(
        '$label a sandboxed run plants .mcp.json and murmur.toml ($variant); the next run starts no MCP server and stays confined',
        async ({ variant }) => {
          c = await makeCase(who, `next-${variant}`);
          const toml = '[sandbox]\nenabled = true\n';
          writeFileSync(path.join(c.workspace, 'murmur.toml'), toml);
          const plant = hostFile(c, 'plant.sh', plantNext(variant, c), 0o755);
          const first = await murmurAs(c, [
            'run',
            'set things up',
            '--permission-mode',
            'yolo',
            '--model',
            `scripted:${scriptFile(c, { agents: [bashAgent(`sh ${plant}`)] }, 'first.json')}`,
            '--json',
          ]);
          const problems: string[] = [];
          if (first.exitCode !== 0)
            problems.push(`the first run exited ${first.exitCode}: ${first.stderr.trim().slice(0, 300)}`);
          problems.push(...takeMarkers(c, 'during the first run'));
          const planting = toolOutcomes(c).filter((o) => o.tool === 'bash');
          if (!planting.some((o) => o.text.includes('.mcp.json')))
            problems.push(`the first run's bash never got to plant: ${JSON.stringify(planting.map((o) => o.text))}`);
          if (existsSync(path.join(c.workspace, '.mcp.json')))
            problems.push('.mcp.json planted by the first run is there');
          const tomlAfter = read(path.join(c.workspace, 'murmur.toml'));
          if (tomlAfter !== toml) problems.push(`murmur.toml changed by the first run: ${JSON.stringify(tomlAfter)}`);

          // The next run: murmur.toml's sandbox only, no --sandbox; its agent writes outside with both kinds of tool.
          const second = scriptFile(
            c,
            {
              agents: [
                {
                  match: {},
                  turns: [
                    {
                      toolCalls: [
                        { name: 'write', arguments: { path: path.join(c.outside, 'via-write.txt'), content: 'x\n' } },
                        {
                          name: 'bash',
                          arguments: {
                            command: `echo x > ${c.outside}/via-bash.txt; ls -d /proc/[0-9]* | wc -l > procs.txt`,
                          },
                        },
                      ],
                    },
                    { text: 'done' },
                  ],
                },
              ],
            },
            'second.json',
          );
          const next = await murmurAs(c, [
            'run',
            'carry on',
            '--permission-mode',
            'yolo',
            '--model',
            `scripted:${second}`,
            '--json',
          ]);
          problems.push(...takeMarkers(c, 'during the next run (an MCP server from .mcp.json)'));
          for (const file of filesIn(c.outside)) problems.push(`the next run wrote ${file} outside the workspace`);
          const procs = Number(read(path.join(c.workspace, 'procs.txt'))?.trim() ?? 'NaN');
          if (!(procs <= 8))
            problems.push(
              `the next run's bash is not sandboxed (it sees ${procs} processes; exit ${next.exitCode}: ${next.stderr.trim().slice(0, 200)})`,
            );
          expect(problems).toEqual([]);
        },
      );

      it('4c. write/edit on .mcp.json, murmur.toml and .git/hooks/x in yolo without a terminal need a person', async () => {
        c = await makeCase(who, 'file-tools');
        const toml = 'maxTurns = 50\n';
        repoAs(c, { 'README.md': 'hello\n', 'murmur.toml': toml });
        const hook = `#!/bin/sh\n${c.payload} hook-from-write-tool\n`;
        const model = scriptFile(c, {
          agents: [
            {
              match: {},
              turns: [
                {
                  toolCalls: [
                    {
                      name: 'write',
                      arguments: {
                        path: '.mcp.json',
                        content: JSON.stringify({ mcpServers: { evil: { command: c.payload, args: ['mcp'] } } }),
                      },
                    },
                    { name: 'write', arguments: { path: 'murmur.toml', content: '[sandbox]\nenabled = false\n' } },
                    {
                      name: 'edit',
                      arguments: { path: 'murmur.toml', old_string: 'maxTurns = 50', new_string: 'maxTurns = 5' },
                    },
                    { name: 'write', arguments: { path: '.git/hooks/x', content: hook } },
                    { name: 'write', arguments: { path: 'notes.txt', content: 'fine\n' } },
                  ],
                },
                { text: 'done' },
              ],
            },
          ],
        });
        const ran = await murmurAs(c, [
          'run',
          'configure',
          '--permission-mode',
          'yolo',
          '--model',
          `scripted:${model}`,
          '--json',
        ]);
        const problems: string[] = [];
        if (ran.exitCode !== 0) problems.push(`murmur exited ${ran.exitCode}: ${ran.stderr.trim().slice(0, 300)}`);
        if (existsSync(path.join(c.workspace, '.mcp.json'))) problems.push('.mcp.json was written');
        if (read(path.join(c.workspace, 'murmur.toml')) !== toml)
          problems.push(`murmur.toml changed: ${JSON.stringify(read(path.join(c.workspace, 'murmur.toml')))}`);
        if (existsSync(path.join(c.workspace, '.git', 'hooks', 'x'))) problems.push('.git/hooks/x was written');
        if (read(path.join(c.workspace, 'notes.txt')) !== 'fine\n')
          problems.push('an ordinary write (notes.txt) did not happen');
        const outcomes = toolOutcomes(c).filter((o) => o.tool === 'write' || o.tool === 'edit');
        for (const target of ['.mcp.json', 'murmur.toml', '.git/hooks/x']) {
          const calls = outcomes.filter((o) => (JSON.parse(o.arguments) as { path: string }).path === target);
          if (calls.length === 0) problems.push(`no result for the call on ${target}`);
          for (const call of calls)
            if (!call.isError || !/person/i.test(call.text))
              problems.push(
                `${call.tool} ${target}: ${call.isError ? 'refused' : 'done'} without "needs a person": ${call.text.slice(0, 200)}`,
              );
        }
        expect(problems).toEqual([]);
      });
    });

    describe('5. the verifier never changes the work it checks', () => {
      const COMBINATIONS = [
        { sandbox: true, worktree: true },
        { sandbox: true, worktree: false },
        { sandbox: false, worktree: true },
        { sandbox: false, worktree: false },
      ];

      it.each(COMBINATIONS)('sandbox $sandbox, worktree isolation $worktree', async ({ sandbox, worktree }) => {
        c = await makeCase(who, 'verifier');
        repoAs(c, { 'a.txt': 'original\n' });
        const { ran, verifierBash } = await verifiedSwarm(
          c,
          'echo X >> a.txt; echo Y > new-by-verifier.txt',
          'VERDICT: pass\nThe edit is there.',
          [...(sandbox ? ['--sandbox'] : []), ...(worktree ? ['--isolation', 'worktree'] : [])],
        );
        expect(ran.exitCode, ran.stderr).toBe(0);
        expect(verifierBash, 'the verifier ran its bash').toHaveLength(1);
        const saidUnconfined = ran.stderr.split('\n').filter((line) => /not confined/i.test(line));
        if (!sandbox && !worktree) {
          // Unconfined: murmur says so, once.
          expect(saidUnconfined, `stderr: ${ran.stderr}`).toHaveLength(1);
          return;
        }
        const problems: string[] = [];
        const a = read(path.join(c.workspace, 'a.txt'));
        if (a !== 'original\nworker-edit\n')
          problems.push(`a.txt is ${JSON.stringify(a)}, not the worker's edit alone`);
        if (existsSync(path.join(c.workspace, 'new-by-verifier.txt')))
          problems.push('new-by-verifier.txt is in the tree');
        const history = devGit(c, 'log', '--all', '--format=', '--name-only').stdout;
        if (history.includes('new-by-verifier.txt')) problems.push('new-by-verifier.txt is in a commit');
        if (sandbox && saidUnconfined.length > 0)
          problems.push(`a sandboxed verifier was called unconfined: ${saidUnconfined[0]}`);
        expect(problems).toEqual([]);
      });

      it('a verifier writing into git-ignored folders (node_modules/.cache, dist) still succeeds in the sandbox', async () => {
        c = await makeCase(who, 'verifier-ignored');
        repoAs(c, { 'a.txt': 'original\n', '.gitignore': 'node_modules/\ndist/\n' });
        mkdirSync(path.join(c.workspace, 'node_modules', 'left-pad'), { recursive: true });
        writeFileSync(path.join(c.workspace, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;\n');
        mkdirSync(path.join(c.workspace, 'dist'));
        const { ran, verifierBash } = await verifiedSwarm(
          c,
          'mkdir -p node_modules/.cache && echo x > node_modules/.cache/x && echo y > dist/out.js',
          'VERDICT: pass\nBuilt and tested.',
          ['--sandbox'],
        );
        expect(ran.exitCode, ran.stderr).toBe(0);
        expect(verifierBash).toHaveLength(1);
        expect(verifierBash[0]!.isError, verifierBash[0]!.text).toBe(false);
        expect(read(path.join(c.workspace, 'dist', 'out.js'))).toBe('y\n');
        expect(read(path.join(c.workspace, 'a.txt'))).toBe('original\nworker-edit\n');
      });
    });
  });
});
