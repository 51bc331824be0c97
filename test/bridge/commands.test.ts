// The murmur-tools command line, parsed on the host side: what each form means and how a mistake is reported.
import { describe, expect, it } from 'vitest';
import { exampleArguments, matchesKeyword, parseCommand, shellQuote } from '../../tools/bridge/commands.js';

describe('murmur-tools arguments', () => {
  it('parses the three commands and their options', () => {
    expect(parseCommand(['tools'])).toEqual({ ok: true, command: { kind: 'tools', json: false } });
    expect(parseCommand(['tools', '--keyword', 'issue', '--json'])).toEqual({
      ok: true,
      command: { kind: 'tools', keyword: 'issue', json: true },
    });
    expect(parseCommand(['tools', '--keyword=pull request'])).toEqual({
      ok: true,
      command: { kind: 'tools', keyword: 'pull request', json: false },
    });
    expect(parseCommand(['tool', 'web_search', '--json'])).toEqual({
      ok: true,
      command: { kind: 'tool', name: 'web_search', json: true },
    });
    expect(parseCommand(['call', 'mcp__a__b', '--args', '{"x":1}'])).toEqual({
      ok: true,
      command: { kind: 'call', name: 'mcp__a__b', args: '{"x":1}' },
    });
    expect(parseCommand(['call', 'mcp__a__b'])).toEqual({
      ok: true,
      command: { kind: 'call', name: 'mcp__a__b', args: '{}' },
    });
    expect(parseCommand([])).toEqual({ ok: true, command: { kind: 'help' } });
  });

  it('reports mistakes naming the bad word and what is accepted', () => {
    const unknown = parseCommand(['run', 'x']);
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.message).toMatch(/unknown command "run"; the commands are tools, tool and call/);
    const flag = parseCommand(['tools', '--verbose']);
    expect(!flag.ok && flag.message).toMatch(/unknown option --verbose; accepted here: --keyword, --json/);
    expect(!parseCommand(['call']).ok).toBe(true);
    const missing = parseCommand(['call', 'x', '--args']);
    expect(!missing.ok && missing.message).toMatch(/--args needs a value/);
    const twice = parseCommand(['call', 'x', '--args', '{}', '--args', '{}']);
    expect(!twice.ok && twice.message).toMatch(/--args is given twice/);
  });

  it('matches every keyword word in the name or description', () => {
    const tool = { name: 'mcp__github__create_issue', description: 'Create a new issue in a repository' };
    expect(matchesKeyword(tool, 'ISSUE repository')).toBe(true);
    expect(matchesKeyword(tool, 'issue pull')).toBe(false);
  });

  it('builds an example call from the required properties, quoted for the shell', () => {
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        count: { type: 'integer', minimum: 2 },
        state: { enum: ['open', 'closed'] },
        note: { type: 'string' },
      },
      required: ['title', 'count', 'state'],
    };
    expect(exampleArguments(schema)).toEqual({ title: '…', count: 2, state: 'open' });
    expect(shellQuote(`{"a":"it's"}`)).toBe(`'{"a":"it'\\''s"}'`);
    expect(shellQuote('plain')).toBe('plain');
  });
});
