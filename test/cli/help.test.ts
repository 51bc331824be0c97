// `murmur X --help`, `-h` and `murmur help X` as a user types them: every command and schedule subcommand answers
// on stdout with exit 0, its usage, its visible flags and an example; unknown flags suggest the closest one.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands.js';
import { murmur } from './helpers.js';

const names = COMMANDS.map((c) => c.name);

describe('per-command help', () => {
  it('covers every command and schedule subcommand', () => {
    for (const name of [
      'run',
      'swarm',
      'resume',
      'sessions',
      'demo',
      'mcp serve',
      'scheduler',
      'serve',
      'report',
      'worker',
    ])
      expect(names).toContain(name);
    for (const sub of ['add', 'list', 'show', 'edit', 'pause', 'unpause', 'rm', 'run-now', 'preview'])
      expect(names).toContain(`schedule ${sub}`);
  });

  it.each(names)('murmur %s --help and -h print its usage, flags and an example (exit 0, stdout)', async (name) => {
    const words = name.split(' ');
    const [long, short, viaHelp] = await Promise.all([
      murmur([...words, '--help']),
      murmur([...words, '-h']),
      murmur(['help', ...words]),
    ]);
    for (const ran of [long, short, viaHelp])
      expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    expect(short.stdout).toBe(long.stdout);
    expect(viaHelp.stdout).toBe(long.stdout);
    const text = long.stdout;
    expect(text.startsWith(`murmur ${name} — `)).toBe(true);
    expect(text).toContain(`Usage:\n  murmur ${name}`);
    expect(text).toMatch(/\nExamples?:\n  murmur |\nExamples?:\n  MURMUR_/);
    expect(text).toContain('-h, --help');
    const spec = COMMANDS.find((c) => c.name === name)!;
    for (const [flag, flagSpec] of Object.entries(spec.flags)) {
      const shown = `--${flagSpec.negated ? `no-${flag}` : flag}`;
      if (flagSpec.hidden) expect(text).not.toMatch(new RegExp(`${shown}(?![\\w-])`));
      else expect(text).toMatch(new RegExp(`\\n  (-\\w, )?${shown}(?![\\w-]).*\\S`));
      if (flagSpec.default !== undefined && !flagSpec.hidden)
        expect(text.replace(/\s+/g, ' ')).toContain(`(default: ${flagSpec.default})`);
    }
  });

  it('murmur help swarm equals murmur swarm --help; help with a schedule subcommand equals its --help', async () => {
    const [help, flag, addHelp, addFlag, groupHelp, groupFlag] = await Promise.all([
      murmur(['help', 'swarm']),
      murmur(['swarm', '--help']),
      murmur(['help', 'schedule', 'add']),
      murmur(['schedule', 'add', '--help']),
      murmur(['help', 'schedule']),
      murmur(['schedule', '--help']),
    ]);
    expect(help.stdout).toBe(flag.stdout);
    expect(addHelp.stdout).toBe(addFlag.stdout);
    expect(addHelp.stdout).toContain('--every N(d|w|mo)');
    expect(groupHelp.stdout).toBe(groupFlag.stdout);
    for (const sub of ['add', 'list', 'show', 'edit', 'pause', 'unpause', 'rm', 'run-now', 'preview'])
      expect(groupFlag.stdout).toContain(`murmur schedule ${sub}`);
  });

  it("documents --description and --no-dashboard, and keeps the scheduler's internal flags out", async () => {
    const [swarm, run, scheduler] = await Promise.all([
      murmur(['swarm', '--help']),
      murmur(['run', '--help']),
      murmur(['scheduler', '--help']),
    ]);
    expect(swarm.stdout).toMatch(/--description TEXT +the swarm's title/);
    expect(run.stdout).toMatch(/--no-dashboard +plain progress lines/);
    for (const hidden of ['--exec-run', '--session-id', '--scheduler-pid', '--task', '--model', '--json'])
      expect(scheduler.stdout).not.toContain(hidden);
  });

  it('keeps the overview on murmur --help', async () => {
    const ran = await murmur(['--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('murmur swarm --template');
    expect(ran.stdout).toContain('murmur help COMMAND');
  });

  it('--help after a flag value or after -- is not help', async () => {
    const ran = await murmur(['run', '--model', 'scripted:none.json', '--', '--help']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('none.json');
  });
});

describe('unknown flags and commands', () => {
  it.each([
    [['swarm', '--itmes', 'a'], 'murmur swarm: unknown flag --itmes. Did you mean --items? See murmur swarm --help.'],
    [['run', '--modle', 'x', 'task'], 'murmur run: unknown flag --modle. Did you mean --model? See murmur run --help.'],
    [['run', '--no-dashbord', 'task'], 'Did you mean --no-dashboard?'],
    [['serve', '--prot', '0'], 'murmur serve: unknown flag --prot. Did you mean --port? See murmur serve --help.'],
    [
      ['schedule', 'add', '--cronn', '* * * * *'],
      'murmur schedule add: unknown flag --cronn. Did you mean --cron? See murmur schedule add --help.',
    ],
    [['swarm', '--max-conc', '2'], 'Did you mean --max-concurrency?'],
    [['run', '--frobnicate', 'task'], 'murmur run: unknown flag --frobnicate. See murmur run --help.'],
  ])('murmur %j exits 2 suggesting the closest flag', async (args, message) => {
    const ran = await murmur(args);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.trim()).toContain(message);
    expect(ran.stderr).not.toContain('Accepted flags');
  });

  it('never suggests a hidden flag', async () => {
    const ran = await murmur(['scheduler', '--exec-rnu', 'x']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe('murmur scheduler: unknown flag --exec-rnu. See murmur scheduler --help.\n');
  });

  it('suggests the closest command, and murmur help names an unknown one', async () => {
    const [typo, help, sub] = await Promise.all([
      murmur(['swram']),
      murmur(['help', 'swram']),
      murmur(['help', 'schedule', 'ad']),
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('murmur: unknown command "swram". Did you mean swarm?');
    expect(help.code).toBe(2);
    expect(help.stderr).toContain('murmur help: unknown command "swram". Did you mean swarm?');
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('unknown subcommand "ad" of murmur schedule');
  });
});
