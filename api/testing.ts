// murmur/testing: the scripted model as a provider for your own tests — deterministic turns, matched to agents by
// role and prompt (see the README's "Scripted model"). Pass it as createMurmur's `model`.
import { ScriptedModel, validateScript, type Script } from '../orchestrator/models/scripted.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import { MurmurOptionsError } from './errors.js';

export type { Script as ModelScript };

/** A scripted provider from a script object (or a scripted-model JSON file's path); a bad script throws MurmurOptionsError naming `script`. */
export function scriptedModel(script: Script | string): ModelProvider {
  try {
    return typeof script === 'string'
      ? ScriptedModel.fromFile(script)
      : new ScriptedModel(validateScript(script, 'script'), 'scripted');
  } catch (error) {
    throw new MurmurOptionsError('script', `murmur: option script: ${(error as Error).message}`);
  }
}
