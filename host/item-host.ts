// A queue worker's item, run on an engine of its own: the swarm's port (swarm-engine.ts) over an engine built for the
// item and closed with it. The worker sees only the port; the engine stays the host's, as a Run's does.
import type { SwarmEngine } from '../swarm/swarm-engine.js';
import { assembleEngine, type AssemblyInput } from './assemble.js';
import { swarmEngineFor } from './swarm-engine.js';

export interface ItemHost {
  host: SwarmEngine;
  /** Closes the item's engine. */
  close(): Promise<void>;
}

export async function openItemHost(input: AssemblyInput): Promise<ItemHost> {
  const { engine, close } = await assembleEngine(input);
  return { host: swarmEngineFor(engine), close };
}
