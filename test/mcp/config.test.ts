// MCP server configuration from .mcp.json and murmur.toml: good entries load, bad ones are named with file and field.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { formatMcpConfigProblem, loadMcpConfig, parseMcpServers, readMcpJson } from '../../tools/mcp/config.js';
import { expandEnv } from '../../tools/mcp/expand-env.js';
import { tempDir } from './helpers.js';

describe('parseMcpServers', () => {
  it('reads stdio and streamable HTTP entries in the common mcpServers format', () => {
    const { servers, problems } = parseMcpServers(
      {
        mcpServers: {
          github: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-github'],
            env: { GITHUB_TOKEN: '${TOKEN}', DEBUG: 1 },
            cwd: 'tools',
          },
          remote: { type: 'http', url: 'http://127.0.0.1:9999/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
          plain: { url: 'https://example.invalid/mcp' },
          typed: { type: 'stdio', command: 'server' },
        },
      },
      '/work/project/.mcp.json',
      { TOKEN: 'secret' },
    );
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      {
        name: 'github',
        source: 'configured',
        file: '/work/project/.mcp.json',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_TOKEN: 'secret', DEBUG: '1' },
        cwd: '/work/project/tools',
      },
      {
        name: 'remote',
        source: 'configured',
        file: '/work/project/.mcp.json',
        transport: 'http',
        url: 'http://127.0.0.1:9999/mcp',
        headers: { Authorization: 'Bearer secret' },
      },
      {
        name: 'plain',
        source: 'configured',
        file: '/work/project/.mcp.json',
        transport: 'http',
        url: 'https://example.invalid/mcp',
        headers: {},
      },
      {
        name: 'typed',
        source: 'configured',
        file: '/work/project/.mcp.json',
        transport: 'stdio',
        command: 'server',
        args: [],
        env: {},
      },
    ]);
  });

  it('tags every server from a file configured: a builtin source is ignored with a warning naming the file', () => {
    const { servers, problems } = parseMcpServers(
      {
        mcpServers: {
          web: { command: 'w', source: 'builtin' },
          matrix: { command: 'm', source: 'builtin-matrix' },
          odd: { command: 'o', source: 'trusted' },
          plain: { command: 'p', source: 'configured' },
        },
      },
      'murmur.toml',
      {},
    );
    expect(servers.map((s) => [s.name, s.source])).toEqual([
      ['web', 'configured'],
      ['matrix', 'configured'],
      ['odd', 'configured'],
      ['plain', 'configured'],
    ]);
    expect(problems).toEqual([
      {
        level: 'warning',
        file: 'murmur.toml',
        server: 'web',
        field: 'mcpServers.web.source',
        message:
          '"builtin" is reserved for servers murmur ships and cannot be set in murmur.toml; ignored, the server is "configured"',
      },
      {
        level: 'warning',
        file: 'murmur.toml',
        server: 'matrix',
        field: 'mcpServers.matrix.source',
        message:
          '"builtin-matrix" is reserved for servers murmur ships and cannot be set in murmur.toml; ignored, the server is "configured"',
      },
      {
        level: 'warning',
        file: 'murmur.toml',
        server: 'odd',
        field: 'mcpServers.odd.source',
        message: 'unknown source "trusted", ignored: a server from murmur.toml is always "configured"',
      },
    ]);
  });

  it('reports each bad entry with its file and field, and still loads the others', () => {
    const { servers, problems } = parseMcpServers(
      {
        mcpServers: {
          good: { command: 'ok' },
          noCommand: { args: ['x'] },
          badArgs: { command: 'x', args: 'not-a-list' },
          badArg: { command: 'x', args: ['a', 3] },
          badEnv: { command: 'x', env: { A: { nested: true } } },
          both: { command: 'x', url: 'http://127.0.0.1/' },
          sse: { type: 'sse', url: 'http://127.0.0.1/sse' },
          badUrl: { url: 'not a url' },
          ftp: { url: 'ftp://127.0.0.1/' },
          missingVar: { command: 'x', env: { KEY: '${NOT_SET_ANYWHERE}' } },
          notObject: 'npx server',
          badTimeout: { command: 'x', timeoutMs: -5 },
          disabled: { command: 'x', disabled: true },
          extra: { command: 'x', autoApprove: [] },
        },
      },
      '/p/.mcp.json',
      {},
    );
    expect(servers.map((s) => s.name)).toEqual(['good', 'extra']);
    const lines = problems.map(formatMcpConfigProblem);
    expect(lines).toEqual([
      '/p/.mcp.json: mcpServers.noCommand.command: is required: give "command" for a stdio server or "url" for a streamable HTTP server',
      '/p/.mcp.json: mcpServers.badArgs.args: must be an array of strings, got "not-a-list"',
      '/p/.mcp.json: mcpServers.badArg.args[1]: must be a string, got number 3',
      '/p/.mcp.json: mcpServers.badEnv.env.A: must be a string, got an object',
      '/p/.mcp.json: mcpServers.both.url: an entry has either "command" (stdio) or "url" (streamable HTTP), not both',
      '/p/.mcp.json: mcpServers.sse.type: unsupported transport "sse" (the deprecated SSE transport is not supported; use the server\'s streamable HTTP endpoint); accepted: stdio, http, streamable-http, streamableHttp',
      '/p/.mcp.json: mcpServers.badUrl.url: is not a valid URL: "not a url"',
      '/p/.mcp.json: mcpServers.ftp.url: must be an http or https URL, got "ftp://127.0.0.1/"',
      '/p/.mcp.json: mcpServers.missingVar.env.KEY: environment variable NOT_SET_ANYWHERE is not set (write ${NOT_SET_ANYWHERE:-default} to give a default)',
      '/p/.mcp.json: mcpServers.notObject: must be an object, got "npx server"',
      '/p/.mcp.json: mcpServers.badTimeout.timeoutMs: must be a positive number of milliseconds, got number -5',
      '/p/.mcp.json: mcpServers.extra.autoApprove: unknown field, ignored (known: type, command, args, env, cwd, url, headers, source, timeoutMs, disabled, description)',
    ]);
    expect(problems.filter((p) => p.level === 'warning').map((p) => p.server)).toEqual(['extra']);
  });

  it('rejects a document that is not an object or whose mcpServers is not one', () => {
    expect(parseMcpServers([], 'a.json').problems.map(formatMcpConfigProblem)).toEqual([
      'a.json: must be an object with an "mcpServers" object, got an array',
    ]);
    expect(parseMcpServers({ mcpServers: [] }, 'a.json').problems.map(formatMcpConfigProblem)).toEqual([
      'a.json: mcpServers: must be an object of servers by name, got an array',
    ]);
    expect(parseMcpServers({ other: 1 }, 'a.json')).toEqual({ servers: [], problems: [] });
  });
});

describe('expandEnv', () => {
  it('expands ${VAR} and ${VAR:-default}', () => {
    expect(expandEnv('a ${X} b ${Y:-dflt} ${Z:-}', { X: '1' })).toEqual({ ok: true, value: 'a 1 b dflt ' });
    expect(expandEnv('${X:-d}', { X: '' })).toEqual({ ok: true, value: 'd' });
    expect(expandEnv('$X and ${MISSING}', {})).toEqual({ ok: false, missing: 'MISSING' });
  });
});

describe('loading from files', () => {
  it('reads .mcp.json from the workspace; a missing file is no servers', async () => {
    const dir = await tempDir();
    expect(await readMcpJson(dir, {})).toEqual({ servers: [], problems: [] });
    await writeFile(
      path.join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { fs: { command: 'mcp-server-filesystem', args: ['${HOME_DIR:-.}'] } } }),
    );
    const { servers } = await readMcpJson(dir, {});
    expect(servers).toMatchObject([{ name: 'fs', args: ['.'], file: path.join(dir, '.mcp.json') }]);
  });

  it('reports broken JSON with the file and keeps going with murmur.toml', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, '.mcp.json'), '{ "mcpServers": { ');
    const tomlFile = path.join(dir, 'murmur.toml');
    const toml = parseToml(
      '[mcpServers.docs]\ncommand = "docs-server"\nargs = ["--port", "0"]\n[mcpServers.docs.env]\nLEVEL = "debug"\n',
    );
    const result = await loadMcpConfig({ workspace: dir, toml: { file: tomlFile, document: toml }, env: {} });
    expect(result.servers).toMatchObject([
      { name: 'docs', command: 'docs-server', args: ['--port', '0'], env: { LEVEL: 'debug' }, file: tomlFile },
    ]);
    expect(result.problems).toHaveLength(1);
    expect(formatMcpConfigProblem(result.problems[0]!)).toMatch(
      new RegExp(`^${path.join(dir, '.mcp.json').replace(/[.]/g, '\\.')}: is not valid JSON: `),
    );
  });

  it('never lets .mcp.json or murmur.toml claim a builtin source', async () => {
    const dir = await tempDir();
    const jsonFile = path.join(dir, '.mcp.json');
    await writeFile(
      jsonFile,
      JSON.stringify({ mcpServers: { websearch: { command: 'search-server', source: 'builtin' } } }),
    );
    const tomlFile = path.join(dir, 'murmur.toml');
    const toml = parseToml('[mcpServers.matrix]\ncommand = "matrix-server"\nsource = "builtin-matrix"\n');
    const result = await loadMcpConfig({ workspace: dir, toml: { file: tomlFile, document: toml }, env: {} });
    expect(result.servers.map((s) => [s.name, s.source])).toEqual([
      ['websearch', 'configured'],
      ['matrix', 'configured'],
    ]);
    expect(result.problems.map(formatMcpConfigProblem)).toEqual([
      `${jsonFile}: mcpServers.websearch.source: "builtin" is reserved for servers murmur ships and cannot be set in ${jsonFile}; ignored, the server is "configured"`,
      `${tomlFile}: mcpServers.matrix.source: "builtin-matrix" is reserved for servers murmur ships and cannot be set in ${tomlFile}; ignored, the server is "configured"`,
    ]);
  });

  it('lets murmur.toml override a .mcp.json server of the same name, with a warning naming both files', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'sub'));
    await writeFile(
      path.join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { shared: { command: 'from-json' }, only: { command: 'json-only' } } }),
    );
    const tomlFile = path.join(dir, 'murmur.toml');
    const toml = parseToml('[mcpServers.shared]\ncommand = "from-toml"\ncwd = "sub"\n');
    const result = await loadMcpConfig({ workspace: dir, toml: { file: tomlFile, document: toml }, env: {} });
    expect(result.servers.map((s) => [s.name, s.transport === 'stdio' ? s.command : s.url])).toEqual([
      ['only', 'json-only'],
      ['shared', 'from-toml'],
    ]);
    expect(result.servers[1]).toMatchObject({ cwd: path.join(dir, 'sub') });
    expect(result.problems.map(formatMcpConfigProblem)).toEqual([
      `${tomlFile}: mcpServers.shared: overrides the server of the same name in ${path.join(dir, '.mcp.json')}`,
    ]);
  });
});
