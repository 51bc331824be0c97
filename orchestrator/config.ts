// murmur.toml: read, checked against a schema (a bad key or type is named with its path), and merged with
// environment overrides. Everything has a default, so no file is needed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { durationToMs } from '../roles/duration.js';
import type { Environment } from './environment.js';

// A positive number of seconds, or text such as "90s" with at least one non-zero digit (so "0s" is refused).
const Duration = Type.Union(
  [
    Type.Number({ exclusiveMinimum: 0 }),
    Type.String({ pattern: '^\\s*(?=[\\d.]*[1-9])\\d+(\\.\\d+)?\\s*(ms|s|m|h)?\\s*$' }),
  ],
  { title: 'duration' },
);
const PositiveInt = Type.Integer({ minimum: 1 });
const Strings = Type.Array(Type.String());

const ConfigSchema = Type.Object(
  {
    model: Type.Optional(Type.String()),
    baseUrl: Type.Optional(Type.String()),
    permissionMode: Type.Optional(Type.Union([Type.Literal('manual'), Type.Literal('auto'), Type.Literal('yolo')])),
    maxTurns: Type.Optional(PositiveInt),
    /** Reasoning effort passed to the provider where it has such a knob (see --effort). */
    effort: Type.Optional(Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])),
    limits: Type.Optional(
      Type.Object(
        {
          maxDepth: Type.Optional(Type.Integer({ minimum: 0 })),
          maxAgents: Type.Optional(PositiveInt),
          maxModelRequests: Type.Optional(PositiveInt),
          agentTimeout: Type.Optional(Duration),
          agentBudgetTokens: Type.Optional(PositiveInt),
          runBudgetTokens: Type.Optional(PositiveInt),
        },
        { additionalProperties: false },
      ),
    ),
    retry: Type.Optional(
      Type.Object(
        {
          maxAttempts: Type.Optional(PositiveInt),
          baseDelay: Type.Optional(Duration),
          maxDelay: Type.Optional(Duration),
        },
        { additionalProperties: false },
      ),
    ),
    subagent: Type.Optional(
      Type.Object({ maxSwarmItems: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false }),
    ),
    swarm: Type.Optional(
      Type.Object(
        {
          maxConcurrency: Type.Optional(PositiveInt),
          initialBurst: Type.Optional(PositiveInt),
          rampInterval: Type.Optional(Duration),
          quietWindow: Type.Optional(Duration),
          maxRetries: Type.Optional(Type.Integer({ minimum: 0 })),
          itemTimeout: Type.Optional(Duration),
          maxRounds: Type.Optional(PositiveInt),
          swarmMode: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    workspace: Type.Optional(
      Type.Object(
        { extraRoots: Type.Optional(Strings), allowSensitive: Type.Optional(Strings) },
        { additionalProperties: false },
      ),
    ),
    shell: Type.Optional(Type.Object({ secretEnvPatterns: Type.Optional(Strings) }, { additionalProperties: false })),
    /** Agents' bash commands in a bubblewrap sandbox (host/sandbox.ts, tools/shell/sandbox.ts). */
    sandbox: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          network: Type.Optional(Type.Boolean()),
          autoAllowBash: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    /** `shellBridge = false` turns murmur-tools off everywhere. */
    tools: Type.Optional(Type.Object({ shellBridge: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    /** Prices of models murmur does not know (or yours over its list), US dollars per million tokens, by model name. */
    prices: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object(
          {
            input: Type.Number({ minimum: 0 }),
            output: Type.Number({ minimum: 0 }),
            cacheRead: Type.Optional(Type.Number({ minimum: 0 })),
            cacheWrite: Type.Optional(Type.Number({ minimum: 0 })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    budget: Type.Optional(
      Type.Object(
        { maxResultChars: Type.Optional(PositiveInt), spillChars: Type.Optional(PositiveInt) },
        { additionalProperties: false },
      ),
    ),
    web: Type.Optional(
      Type.Object(
        {
          allowPrivateAddresses: Type.Optional(Type.Boolean()),
          searxngUrl: Type.Optional(Type.String()),
          maxBytes: Type.Optional(PositiveInt),
          timeout: Type.Optional(Duration),
        },
        { additionalProperties: false },
      ),
    ),
    features: Type.Optional(
      Type.Object(
        { delegation: Type.Optional(Type.Boolean()), webSearch: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
    permissions: Type.Optional(
      Type.Object(
        {
          allow: Type.Optional(Strings),
          ask: Type.Optional(Strings),
          deny: Type.Optional(Strings),
          approvePlans: Type.Optional(Type.Boolean()),
          headless: Type.Optional(Type.Union([Type.Literal('deny'), Type.Literal('allow')])),
        },
        { additionalProperties: false },
      ),
    ),
    mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    mcp: Type.Optional(
      Type.Object(
        {
          callTimeout: Type.Optional(Duration),
          disclosure: Type.Optional(
            Type.Object(
              {
                enabled: Type.Optional(Type.Boolean()),
                models: Type.Optional(Strings),
                minDeferCount: Type.Optional(Type.Integer({ minimum: 0 })),
                thresholdPct: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type MurmurConfig = Static<typeof ConfigSchema>;
// Compiled on first use: most runs have no murmur.toml, and compiling shows in the command's start-up.
let compiledCheck: ReturnType<typeof TypeCompiler.Compile<typeof ConfigSchema>> | undefined;
const configCheck = () => (compiledCheck ??= TypeCompiler.Compile(ConfigSchema));

export class ConfigError extends Error {}

/** `90` (seconds), `"90s"`, `"10m"`, `"1h"`, `"500ms"` -> milliseconds; the fallback when unset. */
export function durationMs(value: number | string | undefined, fallback: number): number {
  return value === undefined ? fallback : (durationToMs(value) ?? fallback);
}

/** What is wrong with a value, and what is accepted: the choices of a list, a duration's forms, else TypeBox's words and the value. */
function describeValueProblem(schema: TSchema, value: unknown, message: string): string {
  const shown = JSON.stringify(value) ?? String(value);
  const choices = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const as unknown);
  if (choices && choices.length > 0 && choices.every((c) => typeof c === 'string')) {
    const list = choices as string[];
    return `${shown} is not accepted; use ${list.slice(0, -1).join(', ')} or ${list.at(-1)}`;
  }
  if (schema.title === 'duration')
    return `${shown} is not a duration; give seconds (a number above 0) or text such as "90s", "10m", "1h" or "500ms"`;
  return `${message} (got ${shown})`;
}

export function validateConfig(value: unknown, source: string): MurmurConfig {
  const checkConfig = configCheck();
  if (checkConfig.Check(value)) return value;
  const problems = [...checkConfig.Errors(value)].slice(0, 3).map((e) => {
    const key = e.path.replace(/^\//, '').replace(/\//g, '.') || '(top level)';
    if (e.message.includes('Unexpected property')) return `unknown key "${key}"`;
    return `"${key}": ${describeValueProblem(e.schema, e.value, e.message)}`;
  });
  throw new ConfigError(`${source}: ${problems.join('; ')}`);
}

/** Reads `murmur.toml` in the workspace (absent = defaults). */
export async function loadConfig(workspace: string): Promise<{ config: MurmurConfig; path?: string }> {
  const path = join(workspace, 'murmur.toml');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { config: {} };
    throw new ConfigError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const { parse } = await import('smol-toml');
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid TOML: ${(error as Error).message.split('\n')[0]}`);
  }
  return { config: validateConfig(data, path), path };
}

/**
 * A positive-integer environment variable. `undefined` when unset; a set but invalid value is reported
 * through `invalid` (callers decide whether that is fatal or a warning).
 */
export function positiveIntFromEnv(
  env: Environment,
  name: string,
  options: { allowZero?: boolean } = {},
): { value?: number; invalid?: string } {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return {};
  // Digits only: `1e3` or `0x10` are numbers to Number() but not a count a person means.
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  const min = options.allowZero ? 0 : 1;
  if (!Number.isInteger(n) || n < min) {
    return {
      invalid: `${name}=${JSON.stringify(raw)} is not ${options.allowZero ? 'a whole number >= 0' : 'a positive whole number'}`,
    };
  }
  return { value: n };
}
