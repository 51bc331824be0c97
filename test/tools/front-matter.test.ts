// Front matter read without the YAML library must be exactly what the library makes of it; anything it is not sure
// of goes to the library.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseFrontMatter, plainMapping } from '../../tools/front-matter.js';

const PLAIN = [
  "name: murmur-tools\ndescription: Reach tools (MCP servers' tools, web search) from bash — find one, call it.",
  'name: a\r\ndescription: b c  d\r\n',
  'name: x\n\ndescription: C# and a:b and 50% [draft] {x} it\'s "quoted" inside\n',
  'model: anthropic:claude-sonnet-4-6\ntools: Read, Grep, Glob, Bash',
  'name: trailing spaces   ',
];

const LIBRARY = [
  '',
  '\n\n',
  'name: a\nname: b',
  'tools:\n  - read\n  - grep',
  'description: >\n  folded',
  'name: "quoted"',
  "name: 'quoted'",
  'name: a # comment',
  'name: a: b',
  'name: a:',
  'count: 3',
  'ratio: .5',
  'enabled: true',
  'enabled: No',
  'value: null',
  'value: ~',
  'value: -x',
  'value: *alias',
  'value: &anchor x',
  'value: !tag x',
  'value: @x',
  'value: `x',
  'value: %x',
  'value: [a, b]',
  'value: {a: b}',
  'value:\tx',
  'value: a\tb',
  '# comment\nname: a',
  ' name: a',
  'name:a',
  'true: a',
  'constructor: a',
  `${'k'.repeat(65)}: a`,
];

describe('front matter', () => {
  it('reads plain `key: text` lines exactly as the YAML library does', () => {
    const shipped = readFileSync(join(import.meta.dirname, '../../skills/murmur-tools/SKILL.md'), 'utf8');
    const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(shipped)![1]!;
    for (const text of [...PLAIN, front]) {
      expect(plainMapping(text), text).toBeDefined();
      expect(plainMapping(text), text).toEqual(parse(text));
    }
  });

  it('leaves everything else to the library, errors included', () => {
    for (const text of LIBRARY) expect(plainMapping(text), text).toBeUndefined();
    expect(parseFrontMatter('tools:\n  - read')).toEqual({ tools: ['read'] });
    expect(() => parseFrontMatter('name: a\nname: b')).toThrow();
  });
});
