// `murmur demo`: a real swarm on a copy of a small CommonJS project — workers convert each file to ESM with
// real edits, verifiers check each with real reads — on a scripted model, so it needs no API key.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boolFlag, parseArgs, UsageError } from './args.js';
import { swarmCommand } from './swarm.js';
import { DEMO_FLAGS } from './flags.js';

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
  const code = await swarmCommand([
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
  ]);
  if (!json) {
    say(
      `\nThe converted project is at ${project} (try: git diff --no-index ${join(EXAMPLES, 'demo-project')} ${project}).`,
    );
    say('To run the same on a real model:');
    say(`  murmur swarm --model openai:gpt-4.1 --verify --permission-mode auto --cwd ${project} --glob 'src/*.js' \\`);
    say(`    --template '${TEMPLATE}'`);
  }
  return code;
}
