// The Messages API through `@anthropic-ai/sdk`, streamed: tool_use / tool_result blocks, base64 images,
// prompt-cache markers. Another endpoint through `baseURL`. The SDK is imported on first use, never at load time.
import type Anthropic from '@anthropic-ai/sdk';
import type { AssistantMessage, StopReason, ThinkingBlock, ToolCall, Usage } from '../types.js';
import {
  anthropicAcceptsThinking,
  interleavedThinkingBeta,
  maxTokensWithThinking,
  rejectsKnob,
  THINKING_BUDGET,
} from './effort.js';
import { costOf } from './prices.js';
import {
  modelError,
  type ModelCapabilities,
  type ModelErrorKind,
  type ModelProvider,
  type ModelRequest,
  type ModelResult,
} from './provider.js';
import {
  emptyStreamFailure,
  otherFailure,
  statusFailure,
  transportFailure,
  type EndpointFacts,
} from './http-failure.js';
import { SdkLog } from './sdk-log.js';
import { streamFetch } from './stream-fetch.js';
import { midToolLoopWithoutThinking, toAnthropicMessages } from './anthropic-messages.js';
import { importPeer, loadFailure } from '../../tools/optional-peer.js';

type Sdk = typeof import('@anthropic-ai/sdk');
type MessageParam = Anthropic.Messages.MessageParam;
type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;
type CreateParams = Anthropic.Messages.MessageCreateParamsStreaming;

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicProviderOptions {
  /** The model id, e.g. `claude-sonnet-4-5`. */
  model: string;
  apiKey: string;
  /** Another Messages-API endpoint; the official API when absent. */
  baseURL?: string;
  /** As given on the command line; `anthropic:<model>` when absent. */
  name?: string;
  /** The environment variable the key came from, named in auth errors. */
  keyEnvVar?: string;
  /** Overrides the capabilities guessed from the model name. */
  capabilities?: Partial<ModelCapabilities>;
  /** Output tokens when the request sets none; a per-model default otherwise. */
  defaultMaxTokens?: number;
  /** Mark the system prompt and the conversation so far as cacheable (on by default). */
  promptCaching?: boolean;
  timeoutMs?: number;
}

export function anthropicCapabilities(model: string, override: Partial<ModelCapabilities> = {}): ModelCapabilities {
  const name = model.toLowerCase();
  // Every Claude 3 and later model takes images; older or foreign names must opt in.
  return { images: name.startsWith('claude-'), video: false, contextWindow: 200_000, ...override };
}

/** A default max_tokens that every model of the family accepts. */
export function defaultMaxTokensFor(model: string): number {
  const name = model.toLowerCase();
  if (/^claude-3-(opus|sonnet|haiku)/.test(name)) return 4096;
  if (/^claude-3-5/.test(name)) return 8192;
  if (/^claude-/.test(name)) return 16_384;
  return 8192;
}

/** Builds one assistant message out of stream events. */
class EventAssembler {
  text = '';
  /** Thinking blocks by stream index: deltas name their block's index. */
  readonly thinking = new Map<number, ThinkingBlock>();
  stopReason: string | null = null;
  stopped = false;
  /** The message's id and the model that answered, from message_start. */
  id: string | undefined;
  model: string | undefined;
  /** Events read: where a malformed one was, and whether any came. */
  events = 0;
  usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  private readonly toolUses = new Map<number, { id: string; name: string; json: string; startInput: unknown }>();

  add(
    event: StreamEvent,
    onTextDelta: ((text: string) => void) | undefined,
    onThinkingDelta: ((text: string) => void) | undefined,
  ): void {
    this.events++;
    switch (event.type) {
      case 'message_start':
        this.takeUsage(event.message.usage);
        if (event.message.id) this.id = event.message.id;
        if (event.message.model) this.model = event.message.model;
        break;
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const block = event.content_block;
          this.toolUses.set(event.index, { id: block.id, name: block.name, json: '', startInput: block.input });
        } else if (event.content_block.type === 'text' && event.content_block.text) {
          this.text += event.content_block.text;
          onTextDelta?.(event.content_block.text);
        } else if (event.content_block.type === 'thinking') {
          const block = event.content_block;
          this.thinking.set(event.index, {
            type: 'thinking',
            thinking: block.thinking ?? '',
            signature: block.signature ?? '',
          });
          if (block.thinking) onThinkingDelta?.(block.thinking);
        } else if (event.content_block.type === 'redacted_thinking') {
          this.thinking.set(event.index, { type: 'redacted_thinking', data: event.content_block.data });
        }
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') {
          this.text += event.delta.text;
          onTextDelta?.(event.delta.text);
        } else if (event.delta.type === 'input_json_delta') {
          const use = this.toolUses.get(event.index);
          if (use) use.json += event.delta.partial_json;
        } else if (event.delta.type === 'thinking_delta') {
          const block = this.thinking.get(event.index);
          if (block?.type === 'thinking') block.thinking += event.delta.thinking;
          onThinkingDelta?.(event.delta.thinking);
        } else if (event.delta.type === 'signature_delta') {
          const block = this.thinking.get(event.index);
          if (block?.type === 'thinking') block.signature = (block.signature ?? '') + event.delta.signature;
        }
        break;
      case 'message_delta':
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.takeUsage(event.usage);
        break;
      case 'message_stop':
        this.stopped = true;
        break;
    }
  }

  // message_delta's counts are cumulative, so a later non-null value replaces an earlier one.
  private takeUsage(
    usage: Partial<
      Record<
        'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens',
        number | null
      >
    >,
  ): void {
    if (usage.input_tokens != null) this.usage.input = usage.input_tokens;
    if (usage.output_tokens != null) this.usage.output = usage.output_tokens;
    if (usage.cache_read_input_tokens != null) this.usage.cacheRead = usage.cache_read_input_tokens;
    if (usage.cache_creation_input_tokens != null) this.usage.cacheWrite = usage.cache_creation_input_tokens;
  }

  thinkingBlocks(): ThinkingBlock[] {
    return [...this.thinking.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
  }

  toolCalls(): ToolCall[] {
    return [...this.toolUses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, use]) => {
        // Some compatible servers send the whole input in content_block_start and no deltas.
        const started = use.startInput && typeof use.startInput === 'object' && Object.keys(use.startInput).length > 0;
        return { id: use.id, name: use.name, arguments: use.json || (started ? JSON.stringify(use.startInput) : '{}') };
      });
  }
}

function stopReasonOf(stopReason: string | null, toolCalls: number): StopReason {
  if (stopReason === 'max_tokens' || stopReason === 'model_context_window_exceeded') return 'length';
  return toolCalls > 0 ? 'tool_calls' : 'end';
}

// Error types the API names in its body, for errors that arrive inside a stream (no HTTP status).
const KIND_BY_TYPE: Record<string, ModelErrorKind> = {
  overloaded_error: 'server',
  api_error: 'server',
  timeout_error: 'server',
  rate_limit_error: 'rate_limit',
  invalid_request_error: 'bad_request',
  request_too_large: 'bad_request',
  authentication_error: 'auth',
  permission_error: 'auth',
  not_found_error: 'not_found',
};

// A 400 about the request's `thinking` parameter, not about thinking blocks inside the messages.
const THINKING_KNOB = { names: /thinking/i, unless: /signature|messages\.\d/i };

export class AnthropicProvider implements ModelProvider {
  readonly name: string;
  readonly capabilities: ModelCapabilities;
  readonly endpoint: string;
  private readonly sdkLog = new SdkLog();
  private client: Promise<{ sdk: Sdk; client: Anthropic }> | undefined;
  /** Set once the server refused the thinking parameter: later requests go without it. */
  private thinkingRefused = false;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.name = options.name ?? `anthropic:${options.model}`;
    this.endpoint = options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL;
    this.capabilities = anthropicCapabilities(options.model, options.capabilities);
  }

  private connect(): Promise<{ sdk: Sdk; client: Anthropic }> {
    this.client ??= importPeer(
      () => import('@anthropic-ai/sdk'),
      '@anthropic-ai/sdk',
      `the provider ${this.name}`,
    ).then((sdk) => {
      // Key and base URL are passed explicitly so the SDK reads neither the environment nor profiles on disk.
      const client = new sdk.Anthropic({
        apiKey: this.options.apiKey,
        baseURL: this.options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
        // withRetries owns retrying, so every retry is seen and reported.
        maxRetries: 0,
        // An answer that is not a stream is named as such (stream-fetch.ts); the SDK prints nothing.
        fetch: streamFetch(),
        logger: this.sdkLog.logger,
        logLevel: 'error',
        ...(this.options.timeoutMs !== undefined ? { timeout: this.options.timeoutMs } : {}),
      });
      return { sdk, client };
    });
    return this.client;
  }

  /** The thinking budget for this request, when effort was asked for and the model takes it. */
  private thinkingBudget(request: ModelRequest): number | undefined {
    if (!request.effort || this.thinkingRefused || !anthropicAcceptsThinking(this.options.model)) return undefined;
    if (midToolLoopWithoutThinking(request.messages)) return undefined;
    return THINKING_BUDGET[request.effort];
  }

  private params(request: ModelRequest, budget: number | undefined): CreateParams {
    const caching = this.options.promptCaching !== false;
    const messages = toAnthropicMessages(request.messages);
    if (caching) markLastBlockCacheable(messages);
    const maxTokens =
      request.maxOutputTokens ?? this.options.defaultMaxTokens ?? defaultMaxTokensFor(this.options.model);
    const params: CreateParams = {
      model: this.options.model,
      max_tokens: budget === undefined ? maxTokens : maxTokensWithThinking(maxTokens, budget),
      messages,
      stream: true,
    };
    if (budget !== undefined) params.thinking = { type: 'enabled', budget_tokens: budget };
    if (request.system) {
      params.system = caching
        ? [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }]
        : request.system;
    }
    if (request.tools.length > 0) {
      params.tools = request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters as Anthropic.Messages.Tool.InputSchema,
      }));
    }
    return params;
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult> {
    if (signal.aborted) return modelError('aborted', 'aborted');
    let connected: { sdk: Sdk; client: Anthropic };
    try {
      connected = await this.connect();
    } catch (error) {
      this.client = undefined;
      return modelError('unknown', loadFailure('@anthropic-ai/sdk', error), { retryable: false });
    }
    let assembler = new EventAssembler();
    let budget = this.thinkingBudget(request);
    for (;;) {
      try {
        const beta = budget !== undefined ? interleavedThinkingBeta(this.options.model) : undefined;
        const options = beta ? { signal, headers: { 'anthropic-beta': beta } } : { signal };
        const stream = await connected.client.messages.create(this.params(request, budget), options);
        for await (const event of stream) assembler.add(event, request.onTextDelta, request.onThinkingDelta);
        break;
      } catch (error) {
        // A compatible server that does not know extended thinking: once without it, and never again.
        if (
          budget !== undefined &&
          !signal.aborted &&
          error instanceof connected.sdk.APIError &&
          rejectsKnob(error.status, error.apiMessage || error.message, THINKING_KNOB)
        ) {
          // Said once per provider: every later request goes without thinking too.
          if (!this.thinkingRefused)
            request.onWarning?.(
              `${this.name}: the server refused the thinking parameter (${error.apiMessage || error.message}); continuing without --effort for this model`,
            );
          this.thinkingRefused = true;
          budget = undefined;
          assembler = new EventAssembler();
          continue;
        }
        return this.failure(error, connected.sdk, signal, assembler.events);
      }
    }
    // The SDK ends the iteration quietly when the request is aborted.
    if (signal.aborted) return modelError('aborted', 'aborted');
    if (assembler.events === 0) return emptyStreamFailure(this.facts());
    if (!assembler.stopped) {
      return modelError('network', `${this.name}: the response stream ended before message_stop (connection cut)`);
    }
    const toolCalls = assembler.toolCalls();
    const usage = assembler.usage;
    const cost = costOf(this.options.model, usage);
    const message: AssistantMessage = {
      role: 'assistant',
      text: assembler.text,
      toolCalls,
      stopReason: stopReasonOf(assembler.stopReason, toolCalls.length),
      usage: cost === undefined ? usage : { ...usage, cost },
      model: this.name,
    };
    if (assembler.id !== undefined) message.responseId = assembler.id;
    if (assembler.model !== undefined) message.responseModel = assembler.model;
    const thinking = assembler.thinkingBlocks();
    if (thinking.length > 0) message.thinking = thinking;
    return { ok: true, message };
  }

  private facts(): EndpointFacts {
    const facts: EndpointFacts = {
      name: this.name,
      model: this.options.model,
      where: this.options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
    };
    if (this.options.baseURL !== undefined) facts.baseURL = this.options.baseURL;
    if (this.options.keyEnvVar !== undefined) facts.keyEnvVar = this.options.keyEnvVar;
    return facts;
  }

  private failure(error: unknown, sdk: Sdk, signal: AbortSignal, eventsRead: number): ModelResult {
    const facts = this.facts();
    const transport = transportFailure(facts, error, sdk, signal);
    if (transport) return transport;
    if (error instanceof sdk.APIError) {
      const said = error.apiMessage || error.message;
      if (error.status === undefined) {
        // An `event: error` inside an accepted stream (overloaded_error is the usual one).
        const kind = KIND_BY_TYPE[error.type ?? ''] ?? 'server';
        return modelError(kind, `${this.name}: the server reported ${error.type ?? 'an error'} mid-stream: ${said}`);
      }
      return statusFailure(facts, error.status, said, error.headers);
    }
    return otherFailure(facts, error, { eventsRead, unparsed: this.sdkLog.takeUnparsed() });
  }
}

/** One cache breakpoint on the newest block: the next turn reads the whole conversation so far from the cache. */
function markLastBlockCacheable(messages: MessageParam[]): void {
  const last = messages[messages.length - 1];
  if (!last || typeof last.content === 'string') return;
  const block = last.content[last.content.length - 1] as { cache_control?: unknown; type: string } | undefined;
  if (
    block &&
    (block.type === 'text' || block.type === 'image' || block.type === 'tool_result' || block.type === 'tool_use')
  ) {
    block.cache_control = { type: 'ephemeral' };
  }
}
