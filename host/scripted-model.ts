// What the front ends get of the scripted model (`scripted:FILE`, the library's testing entry): the provider, its
// script, loading and checking a script, and the error a bad one throws.
export {
  loadScriptFile,
  ScriptedModel,
  ScriptError,
  validateScript,
  type Script,
} from '../orchestrator/models/scripted.js';
