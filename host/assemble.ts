// The host assembly: an engine built from plain values in an explicit order — the session, the permission setup
// and the interaction adapters (they need only the session and the bus), then the engine, then the links that
// point back into it (the agent lookup for approval prompts, the abort signal). The command line, the MCP server
// and the library (api/) all build their engines here.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { Engine, type EngineOptions } from '../orchestrator/engine.js';
import { SessionStore, stateHome } from '../orchestrator/session.js';
import type { AgentLookupRecord } from '../orchestrator/permissions/setup.js';
import { hostEngineOptions, type HostInput } from './engine-options.js';

export interface AssemblyInput extends HostInput {
  /** Aborting it aborts the run (finished work is kept). */
  signal?: AbortSignal;
  /** Last changes to the engine options before the engine is built (a resumed run's replaying provider). */
  extend?: (options: EngineOptions) => void;
}

export interface Assembled {
  engine: Engine;
  /** Detaches from the abort signal; the caller still closes the engine. */
  release(): void;
}

export async function assembleEngine(input: AssemblyInput): Promise<Assembled> {
  // 1. The options: the permission setup (a bad rule throws here, before anything is on disk), the interaction
  //    adapters and the tools. The agents are the engine's: approval prompts look them up once it exists (step 4).
  let lookup: ((agentId: string) => AgentLookupRecord | undefined) | undefined;
  let session: SessionStore | undefined;
  const options = await hostEngineOptions(input, { session: () => session, agents: (agentId) => lookup?.(agentId) });
  // 2. The session, handed to the engine and to the result budget (which spills long results into it).
  session = input.session === false ? undefined : (input.session ?? SessionStore.create(stateHome(realpathSync(resolve(input.cwd)), input.env)));
  options.session = session ?? false;
  input.extend?.(options);
  // 3. The engine.
  const engine = new Engine(options);
  // 4. The links back into it.
  lookup = (agentId) => engine.agentTree.get(agentId);
  const { signal } = input;
  const abort = () => engine.abort();
  if (signal?.aborted) abort();
  else signal?.addEventListener('abort', abort, { once: true });
  return { engine, release: () => signal?.removeEventListener('abort', abort) };
}
