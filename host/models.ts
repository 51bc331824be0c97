// The run's model from plain values: a spec chosen like the command line does (given, else MURMUR_MODEL, else
// murmur.toml, else a key in the environment), and providers for agent definitions that name another model.
import type { MurmurConfig } from '../orchestrator/config.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import { HostInputError } from './errors.js';

export interface ModelInput {
  /** A spec (`openai:gpt-4.1`, `scripted:FILE`); absent = MURMUR_MODEL, murmur.toml, then a key in the environment. */
  model?: string;
  /** The run's endpoint; absent = murmur.toml's `baseUrl`. */
  baseUrl?: string;
  config: MurmurConfig;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The provider for `input`; a bad or missing spec throws a HostInputError naming `model` (or `baseUrl`). */
export async function providerFromSpec(input: ModelInput): Promise<ModelProvider> {
  const { chooseModelSpec } = await import('../orchestrator/models/resolve.js');
  const choice = chooseModelSpec({ flag: input.model, env: input.env, config: input.config.model });
  if (!choice.ok) throw new HostInputError('model', choice.message);
  return createModel(choice.spec, input.baseUrl ?? input.config.baseUrl, input.cwd, input.env);
}

async function createModel(
  spec: string,
  baseUrl: string | undefined,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<ModelProvider> {
  const { createProvider, ModelConfigError } = await import('../orchestrator/models/resolve.js');
  try {
    return await createProvider(spec, { env, cwd, ...(baseUrl ? { baseUrl } : {}) });
  } catch (error) {
    const { ScriptError } = await import('../orchestrator/models/scripted.js');
    if (error instanceof ModelConfigError || error instanceof ScriptError)
      throw new HostInputError(/base.?url/i.test(error.message) ? 'baseUrl' : 'model', error.message);
    throw error;
  }
}

/**
 * Providers for agent definitions that name another model. The run's endpoint belongs to the run's own provider:
 * another provider keeps its default endpoint, so its key is never sent to the run's server.
 */
export function providerFactory(
  input: Omit<ModelInput, 'model'>,
  runModel: string,
): (spec: string) => Promise<ModelProvider> {
  const runProvider = runModel.split(':', 1)[0];
  return (spec) => {
    const sameProvider = spec.split(':', 1)[0] === runProvider;
    return createModel(spec, sameProvider ? (input.baseUrl ?? input.config.baseUrl) : undefined, input.cwd, input.env);
  };
}
