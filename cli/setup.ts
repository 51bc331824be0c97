// What run, swarm and resume share: the workspace, the configuration, the model, the event log and the screen.
// Every bad input here becomes a UsageError (exit 2) that names the value and what is accepted.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadConfig, type MurmurConfig } from '../orchestrator/config.js';
import { createMcpSource, type McpSource } from '../host/mcp-servers.js';
import type { EventBus } from '../host/event-bus.js';
import { writeEventLog, type EventLog } from '../host/command-parts.js';
import type { ModelProvider } from '../host/model-provider.js';
import { UsageError, stringFlag, type ParsedArgs } from './args.js';
import { flushTelemetry, QUICK_FLUSH_MS } from './telemetry.js';

/** The flags run, swarm and resume share: declared with their help in cli/flags.ts. */
export { COMMON_FLAGS } from './flags.js';

export function workspaceFrom(command: string, args: ParsedArgs): string {
  const cwd = resolve(stringFlag(args, 'cwd') ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`murmur ${command}: --cwd ${JSON.stringify(cwd)} is not a folder.`);
  return cwd;
}

/** MCP servers as a tool source (host/mcp-servers.ts); a file that cannot be read or parsed is a usage error. */
export async function mcpSourceFor(options: Parameters<typeof createMcpSource>[0]): Promise<McpSource | undefined> {
  try {
    return await createMcpSource(options);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`murmur: ${error.message}`);
    throw error;
  }
}

export async function configFor(workspace: string): Promise<MurmurConfig> {
  try {
    return (await loadConfig(workspace)).config;
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`murmur: ${error.message}`);
    throw error;
  }
}

export async function providerFor(
  command: string,
  args: ParsedArgs,
  config: MurmurConfig,
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<ModelProvider> {
  const { chooseModelSpec, createProvider } = await import('../host/model-resolution.js');
  const choice = chooseModelSpec({ flag: stringFlag(args, 'model'), env, config: config.model });
  if (!choice.ok) throw new UsageError(`murmur ${command}: ${choice.message}`);
  return createModel(choice.spec, args, config, workspace, env, createProvider);
}

async function createModel(
  spec: string,
  args: ParsedArgs,
  config: MurmurConfig,
  workspace: string,
  env: NodeJS.ProcessEnv,
  create: typeof import('../host/model-resolution.js').createProvider,
): Promise<ModelProvider> {
  try {
    const baseUrl = stringFlag(args, 'base-url') ?? config.baseUrl;
    const { withGivenPrice } = await import('../host/models.js');
    return withGivenPrice(await create(spec, { env, cwd: workspace, ...(baseUrl ? { baseUrl } : {}) }), config.prices);
  } catch (error) {
    const { ModelConfigError } = await import('../host/model-resolution.js');
    const { ScriptError } = await import('../host/scripted-model.js');
    if (error instanceof ModelConfigError || error instanceof ScriptError)
      throw new UsageError(`murmur: ${error.message}`);
    throw error;
  }
}

/**
 * Providers for agent definitions that name another model. `--base-url` belongs to the run's own provider:
 * another provider keeps its default endpoint, so its key is never sent to the run's server.
 */
export function providerFactory(
  args: ParsedArgs,
  config: MurmurConfig,
  workspace: string,
  env: NodeJS.ProcessEnv,
  runModel: string,
) {
  const runProvider = runModel.split(':', 1)[0];
  return async (spec: string): Promise<ModelProvider> => {
    const { createProvider } = await import('../host/model-resolution.js');
    const sameProvider = spec.split(':', 1)[0] === runProvider;
    const own: ParsedArgs = sameProvider ? args : { ...args, flags: { ...args.flags, 'base-url': undefined } };
    return createModel(
      spec,
      own,
      sameProvider ? config : ({ ...config, baseUrl: undefined } as MurmurConfig),
      workspace,
      env,
      createProvider,
    );
  };
}

export function eventLogFor(command: string, args: ParsedArgs, bus: EventBus): EventLog | undefined {
  const path = stringFlag(args, 'events');
  if (path === undefined) return undefined;
  try {
    return writeEventLog(bus, resolve(path));
  } catch (error) {
    throw new UsageError(
      `murmur ${command}: cannot write the event log --events ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    );
  }
}

/** Ctrl-C once aborts cleanly (finished work kept); twice exits at once (ended spans get a second to leave). */
export function onInterrupt(abort: () => void): () => void {
  let count = 0;
  const handler = () => {
    count++;
    if (count === 1) {
      process.stderr.write('\nmurmur: stopping (finished work is kept; press Ctrl-C again to quit at once)\n');
      abort();
    } else void flushTelemetry(QUICK_FLUSH_MS).finally(() => process.exit(130));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
