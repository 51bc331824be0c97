// A task's model, checked when the task is added or edited (command line, tool, console): the spec's form
// (`openai:`, `anthropic:`, `ollama:` or `scripted:` and a name), and for `scripted:FILE` that the file is there
// and is a scripted-model file — read with the loader `murmur run` uses, from the task's workspace, where its
// runs start — so a task is not saved only for every run of it to fail.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseModelSpec } from '../host/model-resolution.js';
import { loadScriptFile } from '../host/scripted-model.js';

/** What is wrong with a model spec for a task in `workspace`, or undefined. */
export function checkModel(spec: string, workspace: string): string | undefined {
  let file: string;
  try {
    const parsed = parseModelSpec(spec);
    if (parsed.provider !== 'scripted') return undefined;
    file = parsed.model;
  } catch (error) {
    return (error as Error).message;
  }
  const path = resolve(workspace, file);
  const where = isAbsolute(file) ? '' : ` (a relative FILE is read from the task's workspace, ${workspace})`;
  if (!existsSync(path)) return `model ${JSON.stringify(spec)}: the scripted-model file ${path} does not exist${where}`;
  try {
    loadScriptFile(path);
  } catch (error) {
    return `model ${JSON.stringify(spec)}: ${(error as Error).message}${where}`;
  }
  return undefined;
}
