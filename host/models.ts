// The run's model from plain values: a spec chosen like the command line does (given, else MURMUR_MODEL, else
// murmur.toml, else a key in the environment), and providers for agent definitions that name another model. A front
// end that makes its own provider gets murmur.toml's prices for it here too (withGivenPrice), and its answers held to
// the contract (checkedProvider).
import type { MurmurConfig } from '../orchestrator/config.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import type { ModelWords } from '../orchestrator/models/resolve.js';
import { HostInputError } from './errors.js';

export type { ModelWords };
export { withGivenPrice } from '../orchestrator/models/prices.js';
export { checkedProvider } from '../orchestrator/models/checked-provider.js';

export interface ModelInput {
  /** A spec (`openai:gpt-4.1`, `scripted:FILE`); absent = MURMUR_MODEL, murmur.toml, then a key in the environment. */
  model?: string;
  /** The run's endpoint; absent = murmur.toml's `baseUrl`. */
  baseUrl?: string;
  config: MurmurConfig;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** How messages name the choices (the front end's option names); default the command line's flags. */
  words?: ModelWords;
}

/** The provider for `input`; a bad or missing spec throws a HostInputError naming `model` (or `baseUrl`, `env`). */
export async function providerFromSpec(input: ModelInput): Promise<ModelProvider> {
  const { chooseModelSpec } = await import('../orchestrator/models/resolve.js');
  const words = input.words ? { words: input.words } : {};
  const choice = chooseModelSpec({ flag: input.model, env: input.env, config: input.config.model, ...words });
  if (!choice.ok) throw new HostInputError('model', choice.message);
  return createModel(choice.spec, input.baseUrl ?? input.config.baseUrl, input);
}

async function createModel(
  spec: string,
  baseUrl: string | undefined,
  { cwd, env, words, config }: Omit<ModelInput, 'model'>,
): Promise<ModelProvider> {
  const { createProvider, ModelConfigError } = await import('../orchestrator/models/resolve.js');
  const { withGivenPrice } = await import('../orchestrator/models/prices.js');
  try {
    const provider = await createProvider(spec, {
      env,
      cwd,
      ...(baseUrl ? { baseUrl } : {}),
      ...(words ? { words } : {}),
    });
    return withGivenPrice(provider, config.prices);
  } catch (error) {
    if (error instanceof ModelConfigError) throw new HostInputError(error.option, error.message);
    const { ScriptError } = await import('../orchestrator/models/scripted.js');
    if (error instanceof ScriptError) throw new HostInputError('model', error.message);
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
    return createModel(spec, sameProvider ? (input.baseUrl ?? input.config.baseUrl) : undefined, input);
  };
}
