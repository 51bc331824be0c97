import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { checkArguments, defineRuntimeTool, validatorFor } from '../../tools/contract.js';
import { FALLBACK_TOOL_NAMES, toLoopTools } from '../../tools/loop-tools.js';

const params = Type.Object({ path: Type.String(), count: Type.Optional(Type.Integer({ minimum: 1 })) });
const tool = (name: string, source: 'builtin' | 'configured' = 'builtin') =>
  defineRuntimeTool({
    def: { name, description: name, parameters: params },
    execute: () => ({ content: [{ type: 'text', text: name }] }),
    source,
  });

describe('the tool contract', () => {
  it('defaults a tool to the builtin source and no execution mode (sequential)', () => {
    const t = tool('x');
    expect(t.source).toBe('builtin');
    expect(t.def.executionMode).toBeUndefined();
  });

  it('compiles one validator per schema and reuses it', () => {
    expect(validatorFor(params)).toBe(validatorFor(params));
  });

  it('names the path and the rule of a bad argument', () => {
    const problem = checkArguments(tool('x').def, { path: 3, count: 0 });
    expect(problem).toContain('Invalid arguments for tool "x"');
    expect(problem).toContain('/path');
    expect(problem).toContain('/count');
    expect(checkArguments(tool('x').def, { path: 'a' })).toBeUndefined();
  });

  it("uses a tool's own validate hook instead of TypeBox (JSON-schema tools)", () => {
    const t = defineRuntimeTool({
      def: {
        name: 'j',
        description: '',
        parameters: Type.Unsafe({ type: 'object' }),
        validate: (v) => ((v as { a?: number }).a === 1 ? undefined : '/a: must be 1'),
      },
      execute: () => ({ content: [] }),
    });
    expect(checkArguments(t.def, { a: 1 })).toBeUndefined();
    expect(checkArguments(t.def, { a: 2 })).toBe('Invalid arguments for tool "j": /a: must be 1');
  });
});

describe("turning tools into the loop's tools", () => {
  it('rejects two tools with one name, naming both sources', () => {
    expect(() => toLoopTools([tool('read'), tool('read', 'configured')], { fallback: false })).toThrow(
      'two tools are named "read": one from source builtin, one from source configured',
    );
  });

  it('fills in missing read, write, edit and bash from the fallback, only when asked', () => {
    const fallback = new Map(FALLBACK_TOOL_NAMES.map((n) => [n, tool(n)]));
    const mine = tool('read', 'configured');
    const filled = toLoopTools([mine], { fallback });
    expect([...filled.tools.keys()].sort()).toEqual(['bash', 'edit', 'read', 'write']);
    expect(filled.tools.get('read')).toBe(mine);
    expect([...toLoopTools([mine], { fallback: false }).tools.keys()]).toEqual(['read']);
    // By default the built-in read, write, edit and bash fill the gaps.
    const defaults = toLoopTools([mine]);
    expect([...defaults.tools.keys()].sort()).toEqual(['bash', 'edit', 'read', 'write']);
    expect(defaults.tools.get('read')).toBe(mine);
    expect(defaults.tools.get('bash')?.source).toBe('builtin');
  });
});
