// Chat Completions through the official `openai` SDK, streamed. Works with any OpenAI-compatible endpoint
// (vLLM, llama.cpp, LM Studio, OpenRouter, Ollama…) through `baseURL`.
// The SDK is imported on first use, never at load time, so `murmur --help` stays fast.
import type OpenAI from 'openai';
import type { ToolContent } from '../../protocol/messages.js';
import type { AssistantMessage, Message, StopReason, ToolCall, Usage } from '../types.js';
import { openAIAcceptsEffort, rejectsKnob } from './effort.js';
import { costOf } from './prices.js';
import {
  modelError,
  type ModelCapabilities,
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
import { importPeer, loadFailure } from '../../tools/optional-peer.js';

type Sdk = typeof import('openai');
type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ContentPart = OpenAI.Chat.Completions.ChatCompletionContentPart;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type CreateParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIProviderOptions {
  /** The model id the server knows, e.g. `gpt-4.1`. */
  model: string;
  apiKey: string;
  /** Any OpenAI-compatible endpoint; the official API when absent. */
  baseURL?: string;
  /** As given on the command line; `openai:<model>` when absent. */
  name?: string;
  /** The environment variable the key came from, named in auth errors. */
  keyEnvVar?: string;
  /** Overrides the capabilities guessed from the model name. */
  capabilities?: Partial<ModelCapabilities>;
  /** Milliseconds per request (the SDK's default is ten minutes). */
  timeoutMs?: number;
  /** Set usage.cost from the price table; off for local servers. */
  priced?: boolean;
}

// Vision-capable families of the official API; other names (local models) must opt in through `capabilities`.
const VISION = /^(gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|o1(?!-mini)|o3(?!-mini)|o4)/;

function contextWindowOf(model: string): number {
  if (/^gpt-4\.1/.test(model)) return 1_047_576;
  if (/^gpt-5/.test(model)) return 400_000;
  if (/^(o1|o3|o4)/.test(model)) return 200_000;
  if (/^(gpt-4o|gpt-4-turbo)/.test(model)) return 128_000;
  if (/^gpt-3\.5/.test(model)) return 16_385;
  return 128_000;
}

export function openAICapabilities(model: string, override: Partial<ModelCapabilities> = {}): ModelCapabilities {
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return { images: VISION.test(bare), video: false, contextWindow: contextWindowOf(bare), ...override };
}

function dataUrl(block: { data: string; mimeType: string }): string {
  return `data:${block.mimeType};base64,${block.data}`;
}

function textOf(blocks: readonly ToolContent[]): string {
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('\n');
}

/** The conversation in Chat Completions shape. */
export function toOpenAIMessages(system: string, messages: readonly Message[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (system) out.push({ role: 'system', content: system });
  // Tool messages take text only, so images a tool returned follow the run of tool messages as one user message.
  let toolImages: ContentPart[] = [];
  const flushToolImages = () => {
    if (toolImages.length === 0) return;
    out.push({ role: 'user', content: toolImages });
    toolImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushToolImages();
    if (message.role === 'user') {
      if (typeof message.content === 'string') {
        out.push({ role: 'user', content: message.content });
        continue;
      }
      const parts: ContentPart[] = message.content.map((block) =>
        block.type === 'text'
          ? { type: 'text', text: block.text }
          : block.type === 'image'
            ? { type: 'image_url', image_url: { url: dataUrl(block) } }
            : { type: 'text', text: `[a ${block.mimeType} video was left out: this model does not take video]` },
      );
      out.push({ role: 'user', content: parts });
    } else if (message.role === 'assistant') {
      const assistant: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
        role: 'assistant',
        content: message.text,
      };
      if (message.toolCalls.length > 0) {
        if (!message.text) assistant.content = null;
        assistant.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      out.push(assistant);
    } else {
      const images = message.content.filter((b) => b.type === 'image');
      let text = textOf(message.content);
      if (images.length > 0) {
        toolImages.push({ type: 'text', text: `Images returned by ${message.toolName} (call ${message.toolCallId}):` });
        for (const image of images)
          toolImages.push({
            type: 'image_url',
            image_url: { url: dataUrl(image as { data: string; mimeType: string }) },
          });
        text = text ? `${text}\n(images follow in the next message)` : '(images follow in the next message)';
      }
      out.push({ role: 'tool', tool_call_id: message.toolCallId, content: text });
    }
  }
  flushToolImages();
  return out;
}

/** Reasoning deltas the compatible servers stream beside the answer: DeepSeek and vLLM name it one way, OpenRouter, Ollama and newer vLLM the other. */
type ReasoningDelta = { reasoning_content?: unknown; reasoning?: unknown };

function reasoningOf(delta: ReasoningDelta | undefined): string {
  if (!delta) return '';
  if (typeof delta.reasoning_content === 'string') return delta.reasoning_content;
  return typeof delta.reasoning === 'string' ? delta.reasoning : '';
}

/** Builds one assistant message out of streamed chunks. */
class ChunkAssembler {
  text = '';
  /** The model's reasoning, kept out of the answer. */
  reasoning = '';
  finishReason: string | null = null;
  usage: Usage | undefined;
  /** The completion's id and the model that answered, as the chunks say. */
  id: string | undefined;
  model: string | undefined;
  /** Chunks read: where a malformed one was, and whether any came. */
  events = 0;
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();

  add(
    chunk: Chunk,
    onTextDelta: ((text: string) => void) | undefined,
    onThinkingDelta: ((text: string) => void) | undefined,
  ): void {
    this.events++;
    if (typeof chunk.id === 'string' && chunk.id) this.id = chunk.id;
    if (typeof chunk.model === 'string' && chunk.model) this.model = chunk.model;
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      // completion_tokens includes the reasoning tokens (OpenAI, DeepSeek, vLLM); a server that counts them apart
      // (reasoning above the completion count) gets them added, so thinking is always paid for.
      const output = chunk.usage.completion_tokens ?? 0;
      const reasoning = chunk.usage.completion_tokens_details?.reasoning_tokens ?? 0;
      this.usage = {
        input: Math.max(0, (chunk.usage.prompt_tokens ?? 0) - cached),
        output: reasoning > output ? output + reasoning : output,
        cacheRead: cached,
        cacheWrite: 0,
      };
    }
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    const reasoning = reasoningOf(delta as ReasoningDelta | undefined);
    if (reasoning) {
      this.reasoning += reasoning;
      onThinkingDelta?.(reasoning);
    }
    if (delta?.content) {
      this.text += delta.content;
      onTextDelta?.(delta.content);
    }
    for (const part of delta?.tool_calls ?? []) {
      // Calls are keyed by index: their deltas may interleave, and only the first carries the id and name.
      let call = this.calls.get(part.index);
      if (!call) {
        call = { id: '', name: '', arguments: '' };
        this.calls.set(part.index, call);
      }
      if (part.id) call.id = part.id;
      const name = part.function?.name;
      // Some compatible servers repeat the name in every delta; others would split it.
      if (name && name !== call.name) call.name += name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  toolCalls(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, arguments: call.arguments || '{}' }));
  }
}

function stopReasonOf(finishReason: string | null, toolCalls: number): StopReason {
  if (finishReason === 'length') return 'length';
  return toolCalls > 0 ? 'tool_calls' : 'end';
}

/** What the server said: the body's message when it has one. */
function saidBy(error: InstanceType<Sdk['APIError']>): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' && body.message ? body.message : error.message;
}

// A 400 about the effort knob itself: "Unrecognized request argument supplied: reasoning_effort", "Unsupported
// parameter: 'reasoning_effort'", Ollama's "… does not support thinking". Not one about a level the model does
// not take ("Unsupported value: 'reasoning_effort' does not support 'low'…"): that fails the call, naming it,
// rather than turning effort off for good.
const EFFORT_KNOB = {
  names: /reasoning_effort|does not support thinking/i,
  unless: /unsupported value|invalid value|supported values/i,
};

export class OpenAIProvider implements ModelProvider {
  readonly name: string;
  readonly capabilities: ModelCapabilities;
  readonly endpoint: string;
  private readonly sdkLog = new SdkLog();
  private client: Promise<{ sdk: Sdk; client: OpenAI }> | undefined;
  /** Set once the server refused reasoning_effort: later requests go without it. */
  private effortRefused = false;

  constructor(private readonly options: OpenAIProviderOptions) {
    this.name = options.name ?? `openai:${options.model}`;
    this.endpoint = options.baseURL ?? OPENAI_DEFAULT_BASE_URL;
    this.capabilities = openAICapabilities(options.model, options.capabilities);
  }

  private connect(): Promise<{ sdk: Sdk; client: OpenAI }> {
    this.client ??= importPeer(() => import('openai'), 'openai', `the provider ${this.name}`).then((sdk) => {
      const client = new sdk.OpenAI({
        apiKey: this.options.apiKey,
        baseURL: this.options.baseURL ?? OPENAI_DEFAULT_BASE_URL,
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

  /** Whether this request carries reasoning_effort (see effort.ts for the rule). */
  private sendsEffort(request: ModelRequest): boolean {
    return (
      request.effort !== undefined &&
      !this.effortRefused &&
      openAIAcceptsEffort(this.options.model, this.options.baseURL === undefined)
    );
  }

  private params(request: ModelRequest, withEffort: boolean): CreateParams {
    const params: CreateParams = {
      model: this.options.model,
      messages: toOpenAIMessages(request.system, request.messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (withEffort && request.effort) params.reasoning_effort = request.effort;
    if (request.tools.length > 0) {
      params.tools = request.tools.map((tool) => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters as Record<string, unknown>,
        },
      }));
    }
    if (request.maxOutputTokens !== undefined) {
      // The official API wants max_completion_tokens (its reasoning models reject max_tokens); many
      // compatible servers only know max_tokens.
      if (this.options.baseURL === undefined) params.max_completion_tokens = request.maxOutputTokens;
      else params.max_tokens = request.maxOutputTokens;
    }
    return params;
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult> {
    if (signal.aborted) return modelError('aborted', 'aborted');
    let connected: { sdk: Sdk; client: OpenAI };
    try {
      connected = await this.connect();
    } catch (error) {
      this.client = undefined;
      return modelError('unknown', loadFailure('openai', error), { retryable: false });
    }
    let assembler = new ChunkAssembler();
    let withEffort = this.sendsEffort(request);
    for (;;) {
      try {
        const stream = await connected.client.chat.completions.create(this.params(request, withEffort), { signal });
        for await (const chunk of stream) assembler.add(chunk, request.onTextDelta, request.onThinkingDelta);
        break;
      } catch (error) {
        // A server (or model) that does not take reasoning_effort: once without it, and never again.
        if (
          withEffort &&
          !signal.aborted &&
          error instanceof connected.sdk.APIError &&
          rejectsKnob(error.status, saidBy(error), EFFORT_KNOB)
        ) {
          // Said once per provider: every later request goes without reasoning_effort too.
          if (!this.effortRefused)
            request.onWarning?.(
              `${this.name}: the server refused reasoning_effort (${saidBy(error)}); continuing without --effort for this model`,
            );
          this.effortRefused = true;
          withEffort = false;
          assembler = new ChunkAssembler();
          continue;
        }
        return this.failure(error, connected.sdk, signal, assembler.events);
      }
    }
    // The SDK ends the iteration quietly when the request is aborted.
    if (signal.aborted) return modelError('aborted', 'aborted');
    if (assembler.events === 0) return emptyStreamFailure(this.facts());
    if (assembler.finishReason === null) {
      return modelError(
        'network',
        `${this.name}: the response stream ended before the model finished (connection cut)`,
      );
    }
    const toolCalls = assembler.toolCalls();
    const message: AssistantMessage = {
      role: 'assistant',
      text: assembler.text,
      toolCalls,
      stopReason: stopReasonOf(assembler.finishReason, toolCalls.length),
      model: this.name,
    };
    if (assembler.id !== undefined) message.responseId = assembler.id;
    if (assembler.model !== undefined) message.responseModel = assembler.model;
    // Kept for the transcript and the screen; never sent back (Chat Completions has no field for it).
    if (assembler.reasoning) message.thinking = [{ type: 'thinking', thinking: assembler.reasoning }];
    if (assembler.usage) {
      const cost = this.options.priced === false ? undefined : costOf(this.options.model, assembler.usage);
      message.usage = cost === undefined ? assembler.usage : { ...assembler.usage, cost };
    }
    return { ok: true, message };
  }

  private facts(): EndpointFacts {
    const facts: EndpointFacts = {
      name: this.name,
      model: this.options.model,
      where: this.options.baseURL ?? OPENAI_DEFAULT_BASE_URL,
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
      const said = saidBy(error);
      if (error.status === undefined) {
        // An error event inside an accepted stream: the server gave up part way.
        return modelError('server', `${this.name}: the server reported an error mid-stream: ${said}`);
      }
      return statusFailure(facts, error.status, said, error.headers);
    }
    return otherFailure(facts, error, { eventsRead, unparsed: this.sdkLog.takeUnparsed() });
  }
}
