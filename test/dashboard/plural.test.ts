// The count helper of every page, the TUI and the command line, and its page-script copy: the same words.
import { Script, createContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { plural, PLURAL_JS } from '../../dashboards/plural.js';
import { CONSOLE_JS } from '../../dashboards/web/assets.js';

describe('plural', () => {
  it('is singular for exactly one and plural otherwise, with an irregular form when given', () => {
    expect(plural(1, 'agent')).toBe('1 agent');
    expect(plural(0, 'agent')).toBe('0 agents');
    expect(plural(2, 'tool call')).toBe('2 tool calls');
    expect(plural(1, 'child', 'children')).toBe('1 child');
    expect(plural(3, 'child', 'children')).toBe('3 children');
    expect(plural(1, 'file matches', 'files match')).toBe('1 file matches');
  });

  it('as page-script source says the same words', () => {
    const context = createContext({});
    new Script(
      `${PLURAL_JS}; globalThis.out = [plural(1, 'turn'), plural(5, 'turn'), plural(1, 'a', 'b'), plural(4, 'a', 'b')];`,
    ).runInContext(context);
    expect(context.out).toEqual(['1 turn', '5 turns', '1 a', '4 b']);
  });

  it('is defined once in the console’s page script, and no other function there is named plural', () => {
    expect(CONSOLE_JS.split(PLURAL_JS).length - 1).toBe(1);
    expect(CONSOLE_JS).not.toMatch(/function\s+plural\b/);
    expect(CONSOLE_JS.match(/\bplural\s*=/g)).toHaveLength(1);
  });
});
