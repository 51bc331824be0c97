// The flag parser and the declarations (in-process): suggestions, short aliases, --help, hidden flags.
import { describe, expect, it } from 'vitest';
import {
  asksForHelp,
  closestFlags,
  editDistance,
  HelpRequest,
  parseArgs,
  UsageError,
  type FlagSpecs,
} from '../../cli/args.js';
import { COMMANDS, resolveCommand } from '../../cli/commands.js';
import { commandHelp, overview, usageLines } from '../../cli/help.js';
import { REPORT_FLAGS, SCHEDULER_FLAGS, SWARM_FLAGS } from '../../cli/flags.js';

const specs: FlagSpecs = {
  items: { kind: 'list' },
  'max-rounds': { kind: 'string' },
  'max-concurrency': { kind: 'string' },
  model: { kind: 'string' },
  dashboard: { kind: 'boolean', negated: true },
  verify: { kind: 'boolean' },
  secret: { kind: 'string', hidden: true },
  output: { kind: 'string', short: 'o' },
};

describe('parseArgs', () => {
  it('suggests the closest visible flag on an unknown one', () => {
    expect(() => parseArgs('swarm', ['--itmes', 'a'], specs)).toThrow(
      new UsageError('murmur swarm: unknown flag --itmes. Did you mean --items? See murmur swarm --help.'),
    );
    expect(() => parseArgs('swarm', ['--max', '2'], specs)).toThrow('Did you mean --max-rounds or --max-concurrency?');
    expect(() => parseArgs('swarm', ['-model', 'x'], specs)).toThrow('unknown flag -model. Did you mean --model?');
    expect(() => parseArgs('swarm', ['--secrt', 'x'], specs)).toThrow(
      'murmur swarm: unknown flag --secrt. See murmur swarm --help.',
    );
    expect(() => parseArgs('swarm', ['--zzz=1'], specs)).toThrow('unknown flag --zzz. See');
  });

  it('takes a short alias, and --help / -h as a help request', () => {
    expect(parseArgs('report', ['ID', '-o', 'f.html'], specs)).toEqual({
      flags: { output: 'f.html' },
      positionals: ['ID'],
    });
    expect(() => parseArgs('report', ['ID', '-h'], specs)).toThrow(HelpRequest);
    expect(() => parseArgs('swarm', ['--items', 'a', '--help'], specs)).toThrow(HelpRequest);
    expect(parseArgs('run', ['--', '--help'], specs).positionals).toEqual(['--help']);
    expect(parseArgs('run', ['--model', '-h'], specs).flags.model).toBe('-h');
    expect(parseArgs('run', ['--no-dashboard'], specs).flags.dashboard).toBe(false);
  });
});

describe('asksForHelp', () => {
  it('sees --help and -h where a flag may stand, not as a value or after --', () => {
    expect(asksForHelp(['--help'], specs)).toBe(true);
    expect(asksForHelp(['--itmes', 'a', '-h'], specs)).toBe(true);
    expect(asksForHelp(['--items', 'a', 'b', '-h'], specs)).toBe(true);
    expect(asksForHelp(['--model', '-h'], specs)).toBe(false);
    expect(asksForHelp(['task', '--', '--help'], specs)).toBe(false);
    expect(asksForHelp(['explain --help'], specs)).toBe(false);
  });
});

describe('closestFlags and editDistance', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('itmes', 'items')).toBe(1);
    expect(editDistance('model', 'MODEL')).toBe(0);
    expect(closestFlags('--no-dashbord', specs)).toEqual(['--no-dashboard']);
    expect(closestFlags('--verfy', specs)).toEqual(['--verify']);
    expect(closestFlags('--completely-else', specs)).toEqual([]);
  });
});

describe('declarations', () => {
  it('give every command a summary, an example and a description for each visible flag', () => {
    for (const command of COMMANDS) {
      expect(command.summary, command.name).not.toBe('');
      expect(command.examples.length, command.name).toBeGreaterThan(0);
      for (const example of command.examples) expect(example, command.name).toContain(`murmur ${command.name}`);
      for (const [name, spec] of Object.entries(command.flags))
        if (!spec.hidden) expect(spec.description, `${command.name} --${name}`).toBeTruthy();
    }
  });

  it('hide the scheduler child mode and keep report -o', () => {
    expect(
      Object.entries(SCHEDULER_FLAGS)
        .filter(([, s]) => !s.hidden)
        .map(([n]) => n),
    ).toEqual(['cwd']);
    expect(REPORT_FLAGS.output!.short).toBe('o');
    expect(SWARM_FLAGS.description!.description).toBeTruthy();
    expect(usageLines(resolveCommand(['report']).command!).join(' ')).toContain('[-o FILE]');
  });

  it('resolve groups and their subcommands', () => {
    expect(resolveCommand(['schedule', 'add', '--cron', 'x']).command?.name).toBe('schedule add');
    expect(resolveCommand(['schedule']).group).toBe('schedule');
    expect(resolveCommand(['mcp', 'serve']).command?.name).toBe('mcp serve');
    expect(resolveCommand(['mcp', '--help']).command?.name).toBe('mcp serve');
    expect(resolveCommand(['nope']).command).toBeUndefined();
  });

  it('render help and the overview without loading a command module', () => {
    expect(commandHelp(resolveCommand(['swarm']).command!)).toContain('--description TEXT');
    expect(overview()).toContain('murmur run [options] "TASK"');
  });
});
