// The scripted model: a deterministic provider driven by a JSON script (see README.md, "The scripted model").
import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { sleep } from '../clock.js';
import type { AssistantMessage, Message, ToolCall, UserMessage, Usage } from '../types.js';
import { userText } from '../types.js';
import { errorKindForStatus, modelError, type ModelProvider, type ModelRequest, type ModelResult } from './provider.js';

const UsageSchema = Type.Object(
  {
    input: Type.Optional(Type.Number({ minimum: 0 })),
    output: Type.Optional(Type.Number({ minimum: 0 })),
    cacheRead: Type.Optional(Type.Number({ minimum: 0 })),
    cacheWrite: Type.Optional(Type.Number({ minimum: 0 })),
    cost: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const TurnSchema = Type.Object(
  {
    latencyMs: Type.Optional(Type.Number({ minimum: 0 })),
    /** The model's reasoning before it answers: streamed as thinking, kept on the message. */
    thinking: Type.Optional(Type.String()),
    text: Type.Optional(Type.String()),
    toolCalls: Type.Optional(
      Type.Array(
        Type.Object(
          // arguments: an object (sent as JSON) or a string sent as is, to script malformed JSON.
          {
            name: Type.String({ minLength: 1 }),
            arguments: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.String()])),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    usage: Type.Optional(UsageSchema),
    failFirst: Type.Optional(
      Type.Object(
        {
          status: Type.Integer({ minimum: 400, maximum: 599 }),
          times: Type.Integer({ minimum: 1 }),
          retryAfterMs: Type.Optional(Type.Number({ minimum: 0 })),
          message: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    /** The agent fails at this turn with this reason (a model error never retried): a swarm item's bad attempt. */
    fail: Type.Optional(Type.String()),
    /** With `fail`: only while the swarm item's attempt is at most this (later attempts answer with the turn). */
    attempts: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const ScriptSchema = Type.Object(
  {
    latencyMs: Type.Optional(Type.Number({ minimum: 0 })),
    rateLimit: Type.Optional(
      Type.Object(
        { maxConcurrent: Type.Integer({ minimum: 1 }), retryAfterMs: Type.Optional(Type.Number({ minimum: 0 })) },
        { additionalProperties: false },
      ),
    ),
    capabilities: Type.Optional(
      Type.Object(
        {
          images: Type.Optional(Type.Boolean()),
          video: Type.Optional(Type.Boolean()),
          contextWindow: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    agents: Type.Array(
      Type.Object(
        {
          match: Type.Optional(
            Type.Object(
              { role: Type.Optional(Type.String()), prompt: Type.Optional(Type.String()) },
              { additionalProperties: false },
            ),
          ),
          turns: Type.Array(TurnSchema),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** A scripted model's script (the JSON of `--model scripted:FILE`): which agent it scripts and each of its turns. */
export type Script = Static<typeof ScriptSchema>;
type ScriptTurn = Static<typeof TurnSchema>;
const checkScript = TypeCompiler.Compile(ScriptSchema);

export class ScriptError extends Error {}

/** Checks a parsed script; throws a ScriptError naming the path and rule of the first problems. */
export function validateScript(value: unknown, source: string): Script {
  if (checkScript.Check(value)) {
    value.agents.forEach((entry, index) => {
      entry.turns.forEach((turn, t) => {
        if (turn.attempts !== undefined && turn.fail === undefined)
          throw new ScriptError(
            `${source}: /agents/${index}/turns/${t}/attempts goes with "fail" (the attempts that fail); add "fail": "REASON" or remove it`,
          );
      });
      if (entry.match?.prompt === undefined) return;
      try {
        new RegExp(entry.match.prompt);
      } catch (error) {
        throw new ScriptError(
          `${source}: /agents/${index}/match/prompt is not a valid regular expression: ${(error as Error).message}`,
        );
      }
    });
    return value;
  }
  const problems = [...checkScript.Errors(value)].slice(0, 3).map((e) => `${e.path || '/'}: ${e.message}`);
  throw new ScriptError(`${source}: not a valid scripted-model file (${problems.join('; ')})`);
}

export function loadScriptFile(path: string): Script {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScriptError(
      `cannot read the scripted-model file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ScriptError(`the scripted-model file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return validateScript(json, path);
}

/** A turn with captures substituted and tool arguments already serialised. */
interface ResolvedTurn {
  latencyMs?: number;
  thinking?: string;
  text: string;
  toolCalls: { name: string; arguments: string }[];
  usage?: Usage;
  failFirst?: ScriptTurn['failFirst'];
  /** The reason of a scripted failure, and the last attempt it fails (absent: every attempt). */
  fail?: string;
  failAttempts?: number;
}

/** The script entry an agent's conversation matched, with the captures of its prompt. */
interface MatchedAgent {
  /** Its index in the script's `agents`. */
  entry: number;
  turns: ScriptTurn[];
  captures: readonly string[];
}

const canonicalRole = (role: string) => (role === 'coder' ? 'worker' : role);

function substitute(value: unknown, captures: readonly string[]): unknown {
  if (typeof value === 'string')
    return value.includes('$') ? value.replace(/\$(\d+)/g, (_, n: string) => captures[Number(n)] ?? '') : value;
  if (Array.isArray(value)) return value.map((v) => substitute(v, captures));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, captures);
    return out;
  }
  return value;
}

function resolveTurn(turn: ScriptTurn, captures: readonly string[]): ResolvedTurn {
  const resolved: ResolvedTurn = {
    text: turn.text === undefined ? '' : (substitute(turn.text, captures) as string),
    toolCalls: (turn.toolCalls ?? []).map((call) => ({
      name: call.name,
      arguments:
        typeof call.arguments === 'string'
          ? (substitute(call.arguments, captures) as string)
          : JSON.stringify(substitute(call.arguments ?? {}, captures)),
    })),
  };
  if (turn.latencyMs !== undefined) resolved.latencyMs = turn.latencyMs;
  if (turn.thinking) resolved.thinking = substitute(turn.thinking, captures) as string;
  if (turn.failFirst) resolved.failFirst = turn.failFirst;
  if (turn.fail !== undefined) resolved.fail = substitute(turn.fail, captures) as string;
  if (turn.attempts !== undefined) resolved.failAttempts = turn.attempts;
  if (turn.usage) resolved.usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...turn.usage };
  return resolved;
}

function quote(text: string): string {
  const line = text.length > 160 ? `${text.slice(0, 160)}…` : text;
  return JSON.stringify(line);
}

/** Told of every turn the script answered (failFirst failures and rate limits are not answers). */
export type TurnObserver = (answered: { entry: number; turn: number; agentId: string }) => void;

export class ScriptedModel implements ModelProvider {
  readonly capabilities;
  private readonly matchers: { role?: string; prompt?: RegExp; turns: ScriptTurn[] }[];
  // Failed attempts of failFirst turns, keyed by the conversation's first message so entries go when the agent
  // goes. Only agents that reach a failFirst turn get an entry: nothing else is kept per agent (a swarm runs
  // thousands), so each call matches the prompt again and resolves only the turn it answers with.
  private readonly attempts = new WeakMap<Message, Map<number, number>>();
  private inFlight = 0;

  constructor(
    private readonly script: Script,
    readonly name = 'scripted',
    private readonly onTurn?: TurnObserver,
  ) {
    this.capabilities = {
      images: script.capabilities?.images ?? false,
      video: script.capabilities?.video ?? false,
      contextWindow: script.capabilities?.contextWindow ?? 200_000,
    };
    this.matchers = script.agents.map((entry) => {
      const matcher: { role?: string; prompt?: RegExp; turns: ScriptTurn[] } = { turns: entry.turns };
      if (entry.match?.role !== undefined) matcher.role = canonicalRole(entry.match.role);
      if (entry.match?.prompt !== undefined) matcher.prompt = new RegExp(entry.match.prompt);
      return matcher;
    });
  }

  static fromFile(path: string): ScriptedModel {
    return new ScriptedModel(loadScriptFile(path), `scripted:${path}`);
  }

  private matchAgent(first: UserMessage, request: ModelRequest): MatchedAgent | string {
    const prompt = userText(first);
    const role = canonicalRole(request.agent.role);
    for (const [entry, matcher] of this.matchers.entries()) {
      if (matcher.role !== undefined && matcher.role !== role) continue;
      if (!matcher.prompt) return { entry, turns: matcher.turns, captures: [prompt] };
      const found = matcher.prompt.exec(prompt);
      if (!found) continue;
      // $0 is the whole prompt, $1… the captures.
      const captures: string[] = [prompt];
      for (let i = 1; i < found.length; i++) captures.push(found[i] ?? '');
      return { entry, turns: matcher.turns, captures };
    }
    return `scripted model: no script entry matches agent ${request.agent.id} (role ${request.agent.role}); its prompt: ${quote(prompt)}`;
  }

  private attemptOf(first: Message, turnIndex: number): number {
    let attempts = this.attempts.get(first);
    if (!attempts) {
      attempts = new Map();
      this.attempts.set(first, attempts);
    }
    const attempt = (attempts.get(turnIndex) ?? 0) + 1;
    attempts.set(turnIndex, attempt);
    return attempt;
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult> {
    if (signal.aborted) return modelError('aborted', 'aborted');
    let first: UserMessage | undefined;
    let turnIndex = 0;
    for (const m of request.messages) {
      if (m.role === 'assistant') turnIndex++;
      else if (m.role === 'user' && first === undefined) first = m;
    }
    if (!first)
      return modelError('script', `scripted model: agent ${request.agent.id} sent no user message`, {
        retryable: false,
      });
    const agent = this.matchAgent(first, request);
    if (typeof agent === 'string') return modelError('script', agent, { retryable: false });
    const scripted = agent.turns[turnIndex];
    if (!scripted) {
      return modelError(
        'script',
        `scripted model: agent ${request.agent.id} (role ${request.agent.role}) has no turn ${turnIndex + 1} in its script (it has ${agent.turns.length}); its prompt: ${quote(userText(first))}`,
        { retryable: false },
      );
    }
    const turn = resolveTurn(scripted, agent.captures);
    // A scripted failure of the item's attempt: known from the request alone, so a retry in another process sees it.
    if (turn.fail !== undefined && (request.agent.attempt ?? 1) <= (turn.failAttempts ?? Infinity))
      return modelError('script', turn.fail, { retryable: false });
    const limit = this.script.rateLimit;
    if (limit && this.inFlight >= limit.maxConcurrent) {
      return modelError('rate_limit', `scripted rate limit: more than ${limit.maxConcurrent} requests at once`, {
        status: 429,
        retryAfterMs: limit.retryAfterMs ?? 500,
      });
    }
    this.inFlight++;
    try {
      const latency = turn.latencyMs ?? this.script.latencyMs ?? 0;
      if (latency > 0) {
        try {
          await sleep(latency, signal);
        } catch {
          return modelError('aborted', 'aborted');
        }
      }
      if (turn.failFirst) {
        const attempt = this.attemptOf(first, turnIndex);
        if (attempt <= turn.failFirst.times) {
          const { status } = turn.failFirst;
          const extra: { status: number; retryAfterMs?: number } = { status };
          if (turn.failFirst.retryAfterMs !== undefined) extra.retryAfterMs = turn.failFirst.retryAfterMs;
          return modelError(
            errorKindForStatus(status),
            turn.failFirst.message ?? `scripted failure: HTTP ${status}`,
            extra,
          );
        }
      }
      if (turn.thinking && request.onThinkingDelta) request.onThinkingDelta(turn.thinking);
      if (turn.text && request.onTextDelta) request.onTextDelta(turn.text);
      const toolCalls: ToolCall[] = turn.toolCalls.map((call, i) => ({
        id: `call_${turnIndex + 1}_${i + 1}`,
        name: call.name,
        arguments: call.arguments,
      }));
      const message: AssistantMessage = {
        role: 'assistant',
        text: turn.text,
        toolCalls,
        stopReason: toolCalls.length > 0 ? 'tool_calls' : 'end',
        model: this.name,
      };
      if (turn.usage) message.usage = { ...turn.usage };
      if (turn.thinking) message.thinking = [{ type: 'thinking', thinking: turn.thinking }];
      this.onTurn?.({ entry: agent.entry, turn: turnIndex, agentId: request.agent.id });
      return { ok: true, message };
    } finally {
      this.inFlight--;
    }
  }
}
