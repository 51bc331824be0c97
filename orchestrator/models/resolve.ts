// Which model to use (flag, environment) and the provider behind a model spec such as `openai:gpt-4.1`.
// Light to import: each provider's module loads here only when its kind of model is asked for (and the HTTP
// providers load their SDKs on first use).
import { resolve as resolvePath } from 'node:path';
import type { ModelCapabilities, ModelProvider } from './provider.js';

/** A bad model choice: the message names the bad value and what would be accepted; `option` the choice at fault. */
export class ModelConfigError extends Error {
  override name = 'ModelConfigError';
  constructor(
    message: string,
    readonly option: 'model' | 'baseUrl' | 'env' = 'model',
  ) {
    super(message);
  }
}

/** How a front end names the model choices in its messages: the command line's flags, or the library's options. */
export interface ModelWords {
  /** The choice of model (`--model`). */
  model: string;
  /** Choosing `spec` (`--model openai:gpt-4.1`). */
  choose: (spec: string) => string;
  /** The endpoint (`--base-url`). */
  baseUrl: string;
}

export const FLAG_WORDS: ModelWords = { model: '--model', choose: (spec) => `--model ${spec}`, baseUrl: '--base-url' };

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_OPENAI_MODEL = 'openai:gpt-4.1';
export const DEFAULT_ANTHROPIC_MODEL = 'anthropic:claude-sonnet-4-6';
export const OLLAMA_DEFAULT_BASE_URL = 'http://localhost:11434/v1';
// Local servers ignore the key, but the SDK insists on one.
const PLACEHOLDER_KEY = 'not-needed';

const ACCEPTED_FORMS =
  'openai:MODEL (e.g. openai:gpt-4.1), anthropic:MODEL (e.g. anthropic:claude-sonnet-4-6), ollama:MODEL (e.g. ollama:llama3.1), scripted:FILE (a JSON script, offline)';

export type ModelSpecSource = '--model' | 'MURMUR_MODEL' | 'murmur.toml' | 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY';
export type ModelChoice = { ok: true; spec: string; source: ModelSpecSource } | { ok: false; message: string };

const value = (env: Env, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

/** `--model`, then MURMUR_MODEL, then a default model for whichever API key is set. */
export function chooseModelSpec(input: {
  flag?: string | undefined;
  env: Env;
  config?: string | undefined;
  words?: ModelWords;
}): ModelChoice {
  const words = input.words ?? FLAG_WORDS;
  if (input.flag !== undefined) {
    const flag = input.flag.trim();
    if (!flag) return { ok: false, message: `${words.model} needs a value; accepted forms: ${ACCEPTED_FORMS}` };
    return { ok: true, spec: flag, source: '--model' };
  }
  const fromEnv = value(input.env, 'MURMUR_MODEL');
  if (fromEnv) return { ok: true, spec: fromEnv, source: 'MURMUR_MODEL' };
  const configured = input.config?.trim();
  if (configured) return { ok: true, spec: configured, source: 'murmur.toml' };
  if (value(input.env, 'OPENAI_API_KEY')) return { ok: true, spec: DEFAULT_OPENAI_MODEL, source: 'OPENAI_API_KEY' };
  if (value(input.env, 'ANTHROPIC_API_KEY'))
    return { ok: true, spec: DEFAULT_ANTHROPIC_MODEL, source: 'ANTHROPIC_API_KEY' };
  const choices: [string, string][] = [
    [DEFAULT_OPENAI_MODEL, `needs OPENAI_API_KEY; any compatible server with ${words.baseUrl}`],
    [DEFAULT_ANTHROPIC_MODEL, 'needs ANTHROPIC_API_KEY'],
    ['ollama:llama3.1', 'a local Ollama server, no key'],
    ['scripted:FILE', 'a scripted model from a JSON file: offline, no key'],
  ];
  const width = Math.max(...choices.map(([spec]) => words.choose(spec).length)) + 2;
  return {
    ok: false,
    message: [
      `No model chosen. Pick one with ${words.model} or the MURMUR_MODEL environment variable:`,
      ...choices.map(([spec, note]) => `  ${words.choose(spec).padEnd(width)}(${note})`),
      "or set OPENAI_API_KEY or ANTHROPIC_API_KEY to use that provider's default model.",
    ].join('\n'),
  };
}

export interface ParsedModelSpec {
  provider: 'openai' | 'anthropic' | 'ollama' | 'scripted';
  /** The model id, or the file for `scripted:`. */
  model: string;
}

/** Splits `provider:model` at the first colon (model names such as `llama3.1:8b` keep theirs). */
export function parseModelSpec(spec: string): ParsedModelSpec {
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? '' : spec.slice(0, colon).trim().toLowerCase();
  const model = colon < 0 ? '' : spec.slice(colon + 1).trim();
  if (provider !== 'openai' && provider !== 'anthropic' && provider !== 'ollama' && provider !== 'scripted') {
    throw new ModelConfigError(`unknown model "${spec}"; accepted forms: ${ACCEPTED_FORMS}`);
  }
  if (!model) {
    const what = provider === 'scripted' ? 'a file' : 'a model name';
    throw new ModelConfigError(`model "${spec}" lacks ${what} after "${provider}:"; accepted forms: ${ACCEPTED_FORMS}`);
  }
  return { provider, model };
}

function checkBaseUrl(url: string, source: string, option: ModelConfigError['option'] = 'env'): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ModelConfigError(
      `${source} "${url}" is not an http(s) URL; expected something like http://localhost:8000/v1`,
      option,
    );
  }
  return url.replace(/\/+$/, '');
}

function ollamaBaseUrl(env: Env): string {
  // OLLAMA_HOST is Ollama's own setting: "host:port" or a full URL.
  const host = value(env, 'OLLAMA_HOST');
  if (!host) return OLLAMA_DEFAULT_BASE_URL;
  const url = /^https?:\/\//.test(host) ? host : `http://${host}`;
  return `${checkBaseUrl(url, 'OLLAMA_HOST')}/v1`;
}

export interface CreateProviderOptions {
  /** `--base-url`: wins over the provider's environment variable. */
  baseUrl?: string | undefined;
  env: Env;
  /** `scripted:FILE` resolves against it. */
  cwd: string;
  /** Overrides the capabilities guessed from the model name (HTTP providers). */
  capabilities?: Partial<ModelCapabilities>;
  /** How the messages name the choices (default: the command line's flags). */
  words?: ModelWords;
}

/**
 * The provider for a spec. Throws a ModelConfigError for a bad spec, base URL or missing key, and a
 * ScriptError (its own message) for an unreadable or invalid script.
 */
export async function createProvider(spec: string, options: CreateProviderOptions): Promise<ModelProvider> {
  const { provider, model } = parseModelSpec(spec);
  const { env } = options;
  const words = options.words ?? FLAG_WORDS;
  const flagUrl = options.baseUrl?.trim() ? checkBaseUrl(options.baseUrl.trim(), words.baseUrl, 'baseUrl') : undefined;
  const capabilities = options.capabilities ? { capabilities: options.capabilities } : {};
  switch (provider) {
    case 'scripted': {
      const { ScriptedModel } = await import('./scripted.js');
      return ScriptedModel.fromFile(resolvePath(options.cwd, model));
    }
    case 'ollama': {
      const { OpenAIProvider } = await import('./openai.js');
      return new OpenAIProvider({
        model,
        name: spec,
        apiKey: value(env, 'OLLAMA_API_KEY') ?? PLACEHOLDER_KEY,
        baseURL: flagUrl ?? ollamaBaseUrl(env),
        priced: false,
        ...capabilities,
      });
    }
    case 'openai': {
      const { OpenAIProvider } = await import('./openai.js');
      const envUrl = value(env, 'OPENAI_BASE_URL');
      const baseURL = flagUrl ?? (envUrl ? checkBaseUrl(envUrl, 'OPENAI_BASE_URL') : undefined);
      const key = value(env, 'OPENAI_API_KEY');
      if (!key && !baseURL) {
        throw new ModelConfigError(
          `${spec} needs an API key: set OPENAI_API_KEY (or point ${words.baseUrl} / OPENAI_BASE_URL at a server that needs none)`,
        );
      }
      const settings = {
        model,
        name: spec,
        apiKey: key ?? PLACEHOLDER_KEY,
        keyEnvVar: 'OPENAI_API_KEY',
        ...capabilities,
      };
      return new OpenAIProvider(baseURL ? { ...settings, baseURL } : settings);
    }
    case 'anthropic': {
      const { AnthropicProvider } = await import('./anthropic.js');
      const envUrl = value(env, 'ANTHROPIC_BASE_URL');
      const baseURL = flagUrl ?? (envUrl ? checkBaseUrl(envUrl, 'ANTHROPIC_BASE_URL') : undefined);
      const key = value(env, 'ANTHROPIC_API_KEY');
      if (!key && !baseURL) {
        throw new ModelConfigError(
          `${spec} needs an API key: set ANTHROPIC_API_KEY (or point ${words.baseUrl} / ANTHROPIC_BASE_URL at a server that needs none)`,
        );
      }
      const settings = {
        model,
        name: spec,
        apiKey: key ?? PLACEHOLDER_KEY,
        keyEnvVar: 'ANTHROPIC_API_KEY',
        ...capabilities,
      };
      return new AnthropicProvider(baseURL ? { ...settings, baseURL } : settings);
    }
  }
}
