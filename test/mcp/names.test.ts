// Model-facing names of MCP tools: sanitised, at most 64 characters, distinct, and matched by catalog patterns.
import { describe, expect, it } from 'vitest';
import { assignServerParts, assignToolNames, matchesToolPattern, qualifiedMcpName } from '../../tools/mcp/names.js';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe('MCP tool names', () => {
  it('sanitises server and tool names to what model APIs accept', () => {
    expect(qualifiedMcpName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(qualifiedMcpName('my server', 'files.read/v2')).toBe('mcp__my_server__files_read_v2');
    expect(qualifiedMcpName('ｆｕｌｌ', 'wide')).toBe('mcp__full__wide'); // NFKC first
  });

  it('cuts long names to 64 characters with a hash that keeps them apart', () => {
    const a = qualifiedMcpName('a-very-long-server-name-for-testing', 'an_even_longer_tool_name_that_goes_on_and_on_1');
    const b = qualifiedMcpName('a-very-long-server-name-for-testing', 'an_even_longer_tool_name_that_goes_on_and_on_2');
    expect(a).toMatch(VALID);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
  });

  it('keeps names distinct when sanitising makes them collide', () => {
    const parts = assignServerParts(['a.b', 'a_b', 'c']);
    expect(parts.get('a.b')).toBe('a_b');
    expect(parts.get('a_b')).toMatch(/^a_b_[0-9a-f]{6}$/);
    expect(parts.get('c')).toBe('c');
    const names = assignToolNames('srv', ['get.item', 'get_item', 'other']);
    expect(names[0]).toBe('mcp__srv__get_item');
    expect(names[1]).toMatch(/^mcp__srv__get_item_[0-9a-f]{6}$/);
    expect(names[2]).toBe('mcp__srv__other');
    for (const name of names) expect(name).toMatch(VALID);
  });

  it('matches catalog patterns such as mcp__github__* after trim, NFKC and lower-casing', () => {
    expect(matchesToolPattern('mcp__github__*', 'mcp__github__create_issue')).toBe(true);
    expect(matchesToolPattern(' MCP__GitHub__* ', 'mcp__github__create_issue')).toBe(true);
    expect(matchesToolPattern('mcp__github__*', 'mcp__gitlab__create_issue')).toBe(false);
    expect(matchesToolPattern('mcp__*__read?file', 'mcp__fs__read_file')).toBe(true);
    expect(matchesToolPattern('mcp__fs__read_file', 'mcp__fs__read_file_x')).toBe(false);
    expect(matchesToolPattern('mcp__a.b__x', 'mcp__a_b__x')).toBe(false); // dots are literal
  });
});
