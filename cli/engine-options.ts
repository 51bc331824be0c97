// The older entry to the host assembly (host/engine-options.ts), kept for callers that pass parsed flags and a
// lookup into the engine they are about to build (`murmur mcp serve`). New hosts call host/assemble.ts.
import type { ParsedArgs } from './args.js';
import { providerFactory } from './setup.js';
import type { Engine, EngineOptions } from '../orchestrator/engine.js';
import { UsageError } from './args.js';
import { hostEngineOptions, type HostInput } from '../host/engine-options.js';
import { HostInputError } from '../host/errors.js';

/** The host assembly's plain values a caller of the older entry gives, plus its parsed flags (for the model factory). */
export type SharedOptionsInput = Pick<
  HostInput,
  'cwd' | 'config' | 'env' | 'bus' | 'provider' | 'hostInterface' | 'sessionKind' | 'mcp' | 'permissionMode' | 'swarmMode' | 'asker' | 'headlessReason'
> & { args: ParsedArgs };

/** Engine options for a host; `engine()` must return the engine built from them (the budget needs its session). */
export async function sharedEngineOptions(input: SharedOptionsInput, engine: () => Engine): Promise<EngineOptions> {
  const { args, ...plain } = input;
  try {
    return await hostEngineOptions(
      { ...plain, providerFor: providerFactory(args, input.config, input.cwd, input.env, input.provider.name) },
      { session: () => engine().session, agents: (id) => engine().scheduler.get(id) },
    );
  } catch (error) {
    if (error instanceof HostInputError) throw new UsageError(`murmur: ${error.message}`);
    throw error;
  }
}
