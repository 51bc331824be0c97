// The models the console offers in its forms: every model the command line can name for the console's workspaces —
// the configured default (MURMUR_MODEL, else murmur.toml's model, else the default of the provider whose API key is
// set), each workspace's murmur.toml model, the models tasks already use and the providers' default models — plus,
// in the task form, "Other…" to type any model spec (the same check as `murmur schedule add --model` applies).
import { loadConfig } from '../../orchestrator/config.js';
import type { Environment } from '../../orchestrator/environment.js';
import { chooseModelSpec, DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL } from '../../orchestrator/models/resolve.js';
import { h } from './html.js';

export interface ModelOption {
  spec: string;
  /** Where it comes from, in a few words. */
  why: string;
}

/** The value of the task form's "Other…" choice: the spec is then the text typed next to it. */
export const OTHER_MODEL = 'other';

async function configuredModel(workspace: string): Promise<string | undefined> {
  try {
    return (await loadConfig(workspace)).config.model?.trim() || undefined;
  } catch {
    // A bad murmur.toml is reported where it is used (a run, `murmur schedule add`), not by a form.
    return undefined;
  }
}

/** The default first (when one is configured), then each other model once. */
export async function knownModels(
  env: Environment,
  workspaces: readonly string[],
  used: readonly (string | undefined)[],
): Promise<ModelOption[]> {
  const found = new Map<string, string>();
  const add = (spec: string | undefined, why: string) => {
    if (spec && !found.has(spec)) found.set(spec, why);
  };
  const [first, ...others] = workspaces;
  const chosen = chooseModelSpec({ env, config: first ? await configuredModel(first) : undefined });
  if (chosen.ok) add(chosen.spec, `the default, from ${chosen.source}`);
  for (const workspace of others) add(await configuredModel(workspace), `murmur.toml of ${workspace}`);
  for (const spec of used) add(spec, 'used by a task');
  add(DEFAULT_OPENAI_MODEL, env.OPENAI_API_KEY ? "OpenAI's default" : "OpenAI's default; needs OPENAI_API_KEY");
  add(
    DEFAULT_ANTHROPIC_MODEL,
    env.ANTHROPIC_API_KEY ? "Anthropic's default" : "Anthropic's default; needs ANTHROPIC_API_KEY",
  );
  return [...found].map(([spec, why]) => ({ spec, why }));
}

/** The task form's model select (left alone: the workspace's default at each run) and its "Other…" text. */
export function modelField(models: readonly ModelOption[], selected: string | undefined): string {
  const listed = selected === undefined || selected === '' || models.some((m) => m.spec === selected);
  const all = listed ? models : [...models, { spec: selected, why: 'this task' }];
  const fallback = all.find((m) => m.why.startsWith('the default'));
  const option = (value: string, label: string) =>
    `<option value="${h(value)}"${value === (selected ?? '') ? ' selected' : ''}>${h(label)}</option>`;
  const choices = [
    option('', `workspace default${fallback ? ` (now ${fallback.spec})` : ''}`),
    ...all.map((m) => option(m.spec, `${m.spec} — ${m.why}`)),
    `<option value="${OTHER_MODEL}">Other…</option>`,
  ].join('');
  return `<div class="model-choice"><label>Model <select name="model">${choices}</select></label><input name="modelOther" class="model-other" aria-label="Other model" placeholder="openai:MODEL, anthropic:MODEL, ollama:MODEL or scripted:FILE" autocomplete="off" hidden></div>`;
}
