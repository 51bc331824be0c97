// `murmur demo`: a real swarm on a copy of a small CommonJS project — workers convert each file to ESM with
// real edits, verifiers check each with real reads — on a scripted model, so it needs no API key.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boolFlag, parseArgs, UsageError } from './args.js';
import { swarmCommand } from './swarm.js';
import type { Finished } from '../host/lifecycle.js';
import { DEMO_FLAGS } from './flags.js';
import { plural } from '../dashboards/plural.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const TEMPLATE =
  'Convert {{item}} from CommonJS to ES modules: turn every require() into an import (with the .js extension) and module.exports into export statements, then check the file reads correctly.';

export async function demoCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('demo', argv, DEMO_FLAGS);
  if (args.positionals.length > 0)
    throw new UsageError(
      `murmur demo: unexpected argument ${JSON.stringify(args.positionals[0])}; it takes only --no-dashboard and --json.`,
    );
  const project = mkdtempSync(join(tmpdir(), 'murmur-demo-'));
  cpSync(join(EXAMPLES, 'demo-project'), project, { recursive: true });
  const script = join(EXAMPLES, 'demo-script.json');
  const json = boolFlag(args, 'json');
  const say = (text: string) => process.stderr.write(`${text}\n`);
  if (!json) {
    say('murmur demo: a swarm of workers converts 12 CommonJS files to ES modules, and a verifier checks each one.');
    say('The model is SCRIPTED (examples/demo-script.json): the edits and reads are real, the answers are canned.');
    say(`The project is a copy at ${project}\n`);
  }
  // A repository with the copy as its first commit: `git diff` there shows the demo's edits and nothing else (the
  // session under .murmur/ is ignored by its own .gitignore).
  const committed = commitAll(project);
  const started = Date.now();
  let finished: Finished | undefined;
  const code = await swarmCommand(
    [
      '--cwd',
      project,
      '--model',
      `scripted:${script}`,
      '--template',
      TEMPLATE,
      '--glob',
      'src/*.js',
      '--verify',
      '--role',
      'worker',
      // Edits inside the copied project are the point of the demo; nothing outside it is touched.
      '--permission-mode',
      'auto',
      '--description',
      'demo: convert a CommonJS project to ESM',
      ...(args.flags.dashboard === false ? ['--no-dashboard'] : []),
      ...(json ? ['--json'] : []),
    ],
    { onFinished: (f) => (finished = f) },
  );
  if (!json) {
    if (finished) say(`\n${demoSummary(finished, Date.now() - started)}`);
    const diff = committed
      ? `cd ${project} && git diff`
      : `git diff --no-index ${join(EXAMPLES, 'demo-project', 'src')} ${join(project, 'src')}`;
    say(`The converted project is at ${project} (see the edits: ${diff}).`);
    say('To run the same on a real model:');
    say(`  murmur swarm --model openai:gpt-4.1 --verify --permission-mode auto --cwd ${project} --glob 'src/*.js' \\`);
    say(`    --template '${TEMPLATE}'`);
  }
  return code;
}

/** `git init` and one commit of everything in `dir`; false when git is missing or fails (the hint then compares folders). */
function commitAll(dir: string): boolean {
  const identity = [
    '-c',
    'user.name=murmur demo',
    '-c',
    'user.email=demo@murmur.invalid',
    '-c',
    'commit.gpgsign=false',
  ];
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    [...identity, 'commit', '-q', '-m', 'The demo project, before'],
  ]) {
    const done = spawnSync('git', args, { cwd: dir, stdio: 'ignore' });
    if (done.status !== 0) return false;
  }
  return true;
}

/** "Done in 4.1 s: 12 of 12 items completed, 12 verified · 31.2k tokens (scripted, no cost)." */
export function demoSummary(finished: Finished, elapsedMs: number): string {
  const { usage } = finished.outcome;
  const tokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  const shown = tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens);
  const items =
    finished.kind === 'swarm'
      ? `${[...finished.results].filter((r) => r.outcome === 'completed').length} of ${plural(finished.results.length, 'item')} completed, ${[...finished.results].filter((r) => r.verdict === 'pass').length} verified · `
      : '';
  return `Done in ${(elapsedMs / 1000).toFixed(1)} s: ${items}${shown} tokens (scripted model, no cost).`;
}
