// Shared pieces of the MCP client tests: configurations of the real servers from npm and of the tricky fixture.
import { existsSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolContext } from '../../tools/contract.js';
import type { McpStdioServerConfig } from '../../tools/mcp/config.js';

// The repository root: the nearest folder above this file with a package.json (also right when run from dist/).
function findRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return process.cwd();
}

const ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
const BIN = path.join(ROOT, 'node_modules', '.bin');

export function everythingServer(name = 'everything', extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: path.join(BIN, 'mcp-server-everything'),
    args: ['stdio'],
    env: {},
    source: 'configured',
    file: 'test',
    ...extra,
  };
}

export function filesystemServer(
  dir: string,
  name = 'fs',
  extra: Partial<McpStdioServerConfig> = {},
): McpStdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: path.join(BIN, 'mcp-server-filesystem'),
    args: [dir],
    env: {},
    source: 'configured',
    file: 'test',
    ...extra,
  };
}

export const TRICKY_SERVER = path.join(ROOT, 'test', 'mcp', 'fixtures', 'tricky-server.mjs');

export function trickyServer(
  name = 'tricky',
  env: Record<string, string> = {},
  extra: Partial<McpStdioServerConfig> = {},
): McpStdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [TRICKY_SERVER],
    env,
    source: 'configured',
    file: 'test',
    ...extra,
  };
}

export async function tempDir(prefix = 'murmur-mcp-'): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function toolContext(role = 'worker', cwd = os.tmpdir()): ToolContext {
  return { agentId: 'test-agent', role, cwd, callId: 'call-1' };
}

export const never: AbortSignal = new AbortController().signal;
