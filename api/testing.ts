// murmur/testing: the scripted model as a provider for your own tests — deterministic turns, matched to agents by
// role and prompt (see the README's "Scripted model"). Pass it as createMurmur's `model`; it records every request
// (`calls`) and checks that its script was used up (`assertComplete()`).
import { loadScriptFile, validateScript, type Script } from '../host/scripted-model.js';
import { MurmurOptionsError } from './errors.js';
import { RecordingScriptedModel, type ScriptedProvider } from './scripted-recorder.js';

export type { Script as ModelScript };
export type { ScriptedCall, ScriptedProvider } from './scripted-recorder.js';
// What `calls` hold, for a test that reads them (the same types as murmur-agents').
export type { Message, ToolSchema } from '../protocol/messages.js';

/** A scripted provider from a script object (or a scripted-model JSON file's path); a bad script throws MurmurOptionsError naming `script`. */
export function scriptedModel(script: Script | string): ScriptedProvider {
  try {
    return typeof script === 'string'
      ? new RecordingScriptedModel(loadScriptFile(script), `scripted:${script}`)
      : new RecordingScriptedModel(validateScript(script, 'script'), 'scripted');
  } catch (error) {
    throw new MurmurOptionsError('script', `murmur: option script: ${(error as Error).message}`);
  }
}
