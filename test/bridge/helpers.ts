// Shared pieces of the murmur-tools tests: a workspace with the real everything MCP server configured in
// .mcp.json, an engine on the scripted model with that MCP source, and running the command outside an agent.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Engine, type EngineOptions } from '../../orchestrator/engine.js';
import { SessionStore, stateHome } from '../../orchestrator/session.js';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import { createMcpSource, type McpSource } from '../../orchestrator/mcp-source.js';
import { ScriptedModel, type Script } from '../../orchestrator/models/scripted.js';
import type { ToolResultMessage } from '../../orchestrator/types.js';
import { everythingServer, tempDir } from '../mcp/helpers.js';

export { tempDir };

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** A workspace whose .mcp.json names the real everything server as "everything". */
export function writeMcpConfig(dir: string): void {
  const server = everythingServer();
  writeFileSync(
    path.join(dir, '.mcp.json'),
    JSON.stringify({ mcpServers: { everything: { command: server.command, args: server.args } } }),
  );
}

export interface BridgeEngine {
  engine: Engine;
  events: MurmurEvent[];
  /** The last system prompt each agent was sent, by agent id. */
  systems: Map<string, string>;
  /** The tool names of each agent's last model request (its catalog), by agent id. */
  catalogs: Map<string, string[]>;
  mcp: McpSource | undefined;
  close(): Promise<void>;
}

export async function bridgeEngine(
  dir: string,
  script: Script,
  options: Partial<EngineOptions> = {},
): Promise<BridgeEngine> {
  const provider = new ScriptedModel(script);
  const systems = new Map<string, string>();
  const catalogs = new Map<string, string[]>();
  const complete = provider.complete.bind(provider);
  provider.complete = (request, signal) => {
    if (request.agent) systems.set(request.agent.id, request.system);
    if (request.agent)
      catalogs.set(
        request.agent.id,
        request.tools.map((tool) => tool.name),
      );
    return complete(request, signal);
  };
  const bus = new EventBus();
  const events: MurmurEvent[] = [];
  bus.on('*', (event) => events.push(event));
  const mcp = await createMcpSource({ cwd: dir, config: options.config ?? {}, env: process.env, bus, provider });
  const engineOptions = {
    env: { HOME: path.join(dir, '.home') },
    session: SessionStore.create(stateHome(realpathSync(dir), {})),
    ...options,
    cwd: dir,
    provider,
    bus,
  } as EngineOptions;
  if (mcp) engineOptions.mcp = mcp;
  const engine = new Engine(engineOptions);
  return {
    engine,
    events,
    systems,
    catalogs,
    mcp,
    async close() {
      await engine.close();
      await mcp?.close();
    },
  };
}

/** Runs a defined or built-in agent detached from main, to the end of its task. */
export async function runAgent(engine: Engine, profileName: string, task: string) {
  const profile = engine.profile(profileName);
  if (typeof profile === 'string') throw new Error(profile);
  const spawned = engine.agentTree.spawn({ profile, detached: true });
  if (!spawned.ok) throw new Error(spawned.error);
  const result = await engine.agentTree.run(spawned.record, task);
  return { record: spawned.record, result };
}

export function toolTexts(messages: readonly { role: string }[]): string[] {
  return messages
    .filter((m): m is ToolResultMessage => m.role === 'tool')
    .map((m) => m.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
}

/** Runs murmur-tools outside any agent with the given environment. */
export function runCommand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

/** The parent pid of a process, from /proc/PID/stat ("pid (comm) state ppid …"; comm may hold spaces). */
function parentPid(pid: string): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Child processes of this process. */
export function childPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (parentPid(entry) === process.pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
