// MCP server configuration in the format people already have: an `mcpServers` object, read from `.mcp.json` in
// the workspace and from `[mcpServers.NAME]` tables of murmur.toml (parsed by the caller). A bad entry is reported
// with its file and field; the other entries still load.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolSource } from '../contract.js';
import { isRecord } from '../util/is-record.js';
import { expandEnv, type Env } from './expand-env.js';

interface McpServerCommon {
  /** The key under `mcpServers`. */
  name: string;
  /** Always `configured` for an entry read from .mcp.json or murmur.toml; builtin tags are for servers murmur ships. */
  source: ToolSource;
  /** The file the entry came from, for messages. */
  file: string;
  /** Milliseconds per tool call; absent = the hub's default. */
  timeoutMs?: number;
}

export interface McpStdioServerConfig extends McpServerCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface McpHttpServerConfig extends McpServerCommon {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export interface McpConfigProblem {
  /** An error drops the entry (or the file); a warning keeps it. */
  level: 'error' | 'warning';
  file: string;
  server?: string;
  /** Dotted path of the field, such as `mcpServers.github.args`. */
  field?: string;
  message: string;
}

export interface McpConfigResult {
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
}

export const MCP_JSON_FILE = '.mcp.json';

/** Tags only servers murmur ships may carry. */
const RESERVED_SOURCES: readonly ToolSource[] = ['builtin', 'builtin-matrix'];
const KNOWN_FIELDS = new Set([
  'type',
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'source',
  'timeoutMs',
  'disabled',
  'description',
]);
const TYPES: Record<string, 'stdio' | 'http'> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
};

export function formatMcpConfigProblem(problem: McpConfigProblem): string {
  const where = problem.field ? `${problem.file}: ${problem.field}` : problem.file;
  return `${where}: ${problem.message}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Collects the problems of one entry; `fail` marks the entry as unusable. */
class EntryReader {
  failed = false;
  constructor(
    readonly file: string,
    readonly server: string,
    readonly problems: McpConfigProblem[],
    readonly env: Env,
  ) {}

  field(name: string): string {
    return `mcpServers.${this.server}.${name}`;
  }

  fail(field: string, message: string): undefined {
    this.failed = true;
    this.problems.push({ level: 'error', file: this.file, server: this.server, field: this.field(field), message });
    return undefined;
  }

  warn(field: string, message: string): void {
    this.problems.push({ level: 'warning', file: this.file, server: this.server, field: this.field(field), message });
  }

  expand(field: string, value: string): string | undefined {
    const expanded = expandEnv(value, this.env);
    if (expanded.ok) return expanded.value;
    return this.fail(
      field,
      `environment variable ${expanded.missing} is not set (write \${${expanded.missing}:-default} to give a default)`,
    );
  }

  string(entry: Record<string, unknown>, name: string, required: boolean): string | undefined {
    const value = entry[name];
    if (value === undefined) return required ? this.fail(name, 'is required (a non-empty string)') : undefined;
    if (typeof value !== 'string' || value.trim() === '')
      return this.fail(name, `must be a non-empty string, got ${describe(value)}`);
    return this.expand(name, value);
  }

  stringList(entry: Record<string, unknown>, name: string): string[] {
    const value = entry[name];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.fail(name, `must be an array of strings, got ${describe(value)}`);
      return [];
    }
    const out: string[] = [];
    value.forEach((item, index) => {
      if (typeof item !== 'string') {
        this.fail(`${name}[${index}]`, `must be a string, got ${describe(item)}`);
        return;
      }
      const expanded = this.expand(`${name}[${index}]`, item);
      if (expanded !== undefined) out.push(expanded);
    });
    return out;
  }

  stringMap(entry: Record<string, unknown>, name: string): Record<string, string> {
    const value = entry[name];
    if (value === undefined) return {};
    if (!isRecord(value)) {
      this.fail(name, `must be an object of string values, got ${describe(value)}`);
      return {};
    }
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      // Numbers and booleans are common in hand-written env blocks; their text is what a process would see.
      if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
        this.fail(`${name}.${key}`, `must be a string, got ${describe(item)}`);
        continue;
      }
      const expanded = this.expand(`${name}.${key}`, String(item));
      if (expanded !== undefined) out[key] = expanded;
    }
    return out;
  }
}

/**
 * Every server read from a file is `configured`. The builtin tags lift role caps (explore and verifier may use a
 * built-in web_search), so only servers murmur ships, built in code, carry them: a file claiming one is ignored.
 */
function readSource(reader: EntryReader, value: unknown): ToolSource {
  if (value === undefined || value === 'configured') return 'configured';
  if (typeof value === 'string' && (RESERVED_SOURCES as readonly string[]).includes(value)) {
    reader.warn(
      'source',
      `${describe(value)} is reserved for servers murmur ships and cannot be set in ${reader.file}; ignored, the server is "configured"`,
    );
    return 'configured';
  }
  reader.warn(
    'source',
    `unknown source ${describe(value)}, ignored: a server from ${reader.file} is always "configured"`,
  );
  return 'configured';
}

function readEntry(reader: EntryReader, entry: Record<string, unknown>, baseDir: string): McpServerConfig | undefined {
  for (const key of Object.keys(entry)) {
    if (!KNOWN_FIELDS.has(key)) reader.warn(key, `unknown field, ignored (known: ${[...KNOWN_FIELDS].join(', ')})`);
  }
  let transport: 'stdio' | 'http' | undefined;
  if (entry.type !== undefined) {
    transport = typeof entry.type === 'string' ? TYPES[entry.type] : undefined;
    if (!transport) {
      const hint =
        entry.type === 'sse'
          ? " (the deprecated SSE transport is not supported; use the server's streamable HTTP endpoint)"
          : '';
      return reader.fail(
        'type',
        `unsupported transport ${describe(entry.type)}${hint}; accepted: ${Object.keys(TYPES).join(', ')}`,
      );
    }
  } else if (entry.command !== undefined && entry.url !== undefined) {
    return reader.fail('url', 'an entry has either "command" (stdio) or "url" (streamable HTTP), not both');
  } else if (entry.command !== undefined) transport = 'stdio';
  else if (entry.url !== undefined) transport = 'http';
  else
    return reader.fail(
      'command',
      'is required: give "command" for a stdio server or "url" for a streamable HTTP server',
    );

  const source = readSource(reader, entry.source);
  let timeoutMs: number | undefined;
  if (entry.timeoutMs !== undefined) {
    if (typeof entry.timeoutMs === 'number' && Number.isFinite(entry.timeoutMs) && entry.timeoutMs > 0)
      timeoutMs = entry.timeoutMs;
    else reader.fail('timeoutMs', `must be a positive number of milliseconds, got ${describe(entry.timeoutMs)}`);
  }
  const common = { name: reader.server, source, file: reader.file, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };

  if (transport === 'stdio') {
    const command = reader.string(entry, 'command', true);
    const args = reader.stringList(entry, 'args');
    const env = reader.stringMap(entry, 'env');
    const cwd = reader.string(entry, 'cwd', false);
    if (reader.failed || command === undefined) return undefined;
    const config: McpStdioServerConfig = { ...common, transport, command, args, env };
    if (cwd !== undefined) config.cwd = path.resolve(baseDir, cwd);
    return config;
  }
  const url = reader.string(entry, 'url', true);
  const headers = reader.stringMap(entry, 'headers');
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      reader.fail('url', `is not a valid URL: ${describe(url)}`);
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      reader.fail('url', `must be an http or https URL, got ${describe(url)}`);
  }
  if (reader.failed || url === undefined) return undefined;
  return { ...common, transport, url, headers };
}

/**
 * Reads the `mcpServers` object of one configuration document (the parsed .mcp.json, or the parsed murmur.toml).
 * `file` names the document in messages; relative `cwd` values resolve against its folder.
 */
export function parseMcpServers(document: unknown, file: string, env: Env = process.env): McpConfigResult {
  const problems: McpConfigProblem[] = [];
  const servers: McpServerConfig[] = [];
  if (!isRecord(document)) {
    problems.push({
      level: 'error',
      file,
      message: `must be an object with an "mcpServers" object, got ${describe(document)}`,
    });
    return { servers, problems };
  }
  const table = document.mcpServers;
  if (table === undefined) return { servers, problems };
  if (!isRecord(table)) {
    problems.push({
      level: 'error',
      file,
      field: 'mcpServers',
      message: `must be an object of servers by name, got ${describe(table)}`,
    });
    return { servers, problems };
  }
  const baseDir = path.dirname(path.resolve(file));
  for (const [name, entry] of Object.entries(table)) {
    if (name.trim() === '') {
      problems.push({ level: 'error', file, field: 'mcpServers', message: 'a server needs a non-empty name' });
      continue;
    }
    const reader = new EntryReader(file, name, problems, env);
    if (!isRecord(entry)) {
      problems.push({
        level: 'error',
        file,
        server: name,
        field: `mcpServers.${name}`,
        message: `must be an object, got ${describe(entry)}`,
      });
      continue;
    }
    if (entry.disabled === true) continue;
    if (entry.disabled !== undefined && typeof entry.disabled !== 'boolean')
      reader.warn('disabled', `must be true or false, got ${describe(entry.disabled)}; the server is kept`);
    const config = readEntry(reader, entry, baseDir);
    if (config) servers.push(config);
  }
  return { servers, problems };
}

/** Reads `.mcp.json` from the workspace; a missing file is no servers and no problem. */
export async function readMcpJson(workspace: string, env: Env = process.env): Promise<McpConfigResult> {
  const file = path.join(workspace, MCP_JSON_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [], problems: [] };
    return {
      servers: [],
      problems: [{ level: 'error', file, message: `cannot be read: ${(error as Error).message}` }],
    };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return {
      servers: [],
      problems: [{ level: 'error', file, message: `is not valid JSON: ${(error as Error).message}` }],
    };
  }
  return parseMcpServers(document, file, env);
}

/** Later results win on a name clash (each clash is a warning naming both files). */
export function mergeMcpConfigs(...results: McpConfigResult[]): McpConfigResult {
  const byName = new Map<string, McpServerConfig>();
  const problems: McpConfigProblem[] = [];
  for (const result of results) {
    problems.push(...result.problems);
    for (const server of result.servers) {
      const earlier = byName.get(server.name);
      if (earlier) {
        problems.push({
          level: 'warning',
          file: server.file,
          server: server.name,
          field: `mcpServers.${server.name}`,
          message: `overrides the server of the same name in ${earlier.file}`,
        });
        byName.delete(server.name);
      }
      byName.set(server.name, server);
    }
  }
  return { servers: [...byName.values()], problems };
}

export interface LoadMcpConfigOptions {
  workspace: string;
  /** murmur.toml, already parsed with smol-toml, and its path for messages. */
  toml?: { file: string; document: unknown };
  env?: Env;
}

/** `.mcp.json` first, then murmur.toml, which wins on a name clash since it is murmur's own configuration. */
export async function loadMcpConfig(options: LoadMcpConfigOptions): Promise<McpConfigResult> {
  const env = options.env ?? process.env;
  const fromJson = await readMcpJson(options.workspace, env);
  if (!options.toml) return fromJson;
  return mergeMcpConfigs(fromJson, parseMcpServers(options.toml.document, options.toml.file, env));
}
