// Spans from the engine's events: a subscriber of the bus, like the event log and the dashboards, so the engine
// knows nothing of tracing. The tree: the run (`murmur.run`) → a swarm (`murmur.swarm`) → its items
// (`murmur.swarm.item`) → each agent's run (`invoke_agent ROLE`, the item's worker and verifiers) → its model calls
// (`chat MODEL`) and tool calls (`execute_tool TOOL`); a subagent's run sits under its parent's. An engine of a
// `murmur worker` has no run or swarm of its own: its agents join the coordinator's item span named by the job.
//
// Nothing is recorded, and nothing but the first span is built, when the provider records nothing (no SDK
// registered: the API's no-op tracer): the first span decides, then the subscriber lets go of the bus.
import { isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { EventBus, EventOf, EventType, MurmurEvent } from '../../orchestrator/events.js';
import { ContentLog } from './content.js';
import {
  AGENT_ID,
  AGENT_NAME,
  CONVERSATION_ID,
  ERROR_TYPE,
  FINISH_REASONS,
  finishReason,
  OPERATION,
  PROVIDER,
  providerAndModel,
  REQUEST_MODEL,
  RESPONSE_ID,
  RESPONSE_MODEL,
  SCHEMA_URL,
  serverAttributes,
  TOOL_CALL_ID,
  TOOL_NAME,
  TOOL_TYPE,
  usageAttributes,
} from './genai.js';
import { publishItemContexts, type TracingInput } from './links.js';
import { parseTraceparent } from './traceparent.js';
import { SwarmSpans } from './swarm-spans.js';
import type { Open } from './span-types.js';

export type { Open, SpanStarter } from './span-types.js';

export interface RecorderInput extends TracingInput {
  /** The run's model (the provider's name): agents without a model of their own call it. */
  model: string;
  sessionId?: string;
}

interface AgentSpan extends Open {
  model: string;
}

/** The events that may make the first span: they decide whether anything is recorded. */
const FIRST: readonly EventType[] = ['run.start', 'swarm.start', 'agent.start'];
const REST: readonly EventType[] = [
  'run.end',
  'swarm.item',
  'swarm.end',
  'agent.end',
  'turn.start',
  'turn.end',
  'message',
  'model.retry',
  'tool.start',
  'tool.end',
];

export class SpanRecorder {
  private readonly tracer: Tracer;
  /** The parent of the run span and of agents without a known parent: a remote item's span, or none. */
  private readonly root: Context;
  private run: Open | undefined;
  private readonly swarms: SwarmSpans;
  private readonly agents = new Map<string, AgentSpan>();
  private readonly chats = new Map<string, Span>();
  private readonly tools = new Map<string, Span>();
  private readonly content: ContentLog | undefined;
  private offs: (() => void)[] = [];
  private decided = false;

  constructor(
    private readonly bus: EventBus,
    private readonly input: RecorderInput,
  ) {
    this.tracer = input.provider.getTracer('murmur-agents', undefined, { schemaUrl: SCHEMA_URL });
    const remote = parseTraceparent(input.parent);
    this.root = remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
    this.content = input.captureContent ? new ContentLog() : undefined;
    this.swarms = new SwarmSpans((...args) => this.start(...args), input.captureContent);
    for (const type of FIRST) this.listen(type);
  }

  /** Ends what is still open (a run cut short) and lets go of the bus. */
  close(): void {
    this.detach();
    const now = Date.now();
    for (const span of [...this.tools.values(), ...this.chats.values()]) span.end(now);
    for (const open of this.agents.values()) open.span.end(now);
    this.swarms.close(now);
    this.run?.span.end(now);
    this.content?.endPending();
    this.tools.clear();
    this.chats.clear();
    this.agents.clear();
    this.run = undefined;
  }

  private listen(type: EventType): void {
    this.offs.push(this.bus.on(type, (event: MurmurEvent) => this.handle(event)));
  }

  private detach(): void {
    for (const off of this.offs.splice(0)) off();
  }

  /** The first span: recorded, and the rest of the events are listened to; or not, and the bus is let go. */
  private decide(span: Span): boolean {
    if (this.decided) return true;
    if (!span.isRecording()) {
      this.detach();
      // No trace at all (not a sampled-out one): the no-op tracer.
      if (!isSpanContextValid(span.spanContext())) this.input.onSilent?.();
      return false;
    }
    this.decided = true;
    for (const type of REST) this.listen(type);
    this.offs.push(publishItemContexts(this.bus, (swarmId, index) => this.swarms.traceparent(swarmId, index)));
    return true;
  }

  private start(name: string, parent: Context, attributes: Attributes, kind = SpanKind.INTERNAL): Open {
    const span = this.tracer.startSpan(name, { kind, attributes }, parent);
    return { span, context: trace.setSpan(parent, span) };
  }

  private handle(event: MurmurEvent): void {
    switch (event.type) {
      case 'run.start':
        return this.runStart(event);
      case 'run.end':
        return this.runEnd(event);
      case 'swarm.start': {
        const parent = event.parentId !== undefined ? this.agents.get(event.parentId)?.context : undefined;
        return this.swarms.swarmStart(event, parent ?? this.run?.context ?? this.root, (open) =>
          this.decide(open.span),
        );
      }
      case 'swarm.item':
        return this.swarms.swarmItem(event, this.run?.context ?? this.root);
      case 'swarm.end':
        return this.swarms.swarmEnd(event);
      case 'agent.start':
        return this.agentStart(event);
      case 'agent.end':
        return this.agentEnd(event);
      case 'turn.start':
        return this.turnStart(event);
      case 'turn.end':
        return this.turnEnd(event);
      case 'message':
        return this.message(event);
      case 'model.retry':
        this.chats.get(event.agentId)?.addEvent('murmur.model.retry', {
          'murmur.retry.attempt': event.attempt,
          'murmur.retry.delay_ms': event.delayMs,
          ...(event.status !== undefined ? { 'murmur.retry.status': event.status } : {}),
        });
        return;
      case 'tool.start':
        return this.toolStart(event);
      case 'tool.end':
        return this.toolEnd(event);
      default:
        return;
    }
  }

  private runStart(event: EventOf<'run.start'>): void {
    const { provider, model } = providerAndModel(event.model);
    const attributes: Attributes = { 'murmur.run.mode': event.mode, [PROVIDER]: provider, [REQUEST_MODEL]: model };
    if (this.input.sessionId !== undefined) attributes['murmur.session.id'] = this.input.sessionId;
    if (this.content) attributes['murmur.run.task'] = event.task;
    const run = this.start('murmur.run', this.root, attributes);
    if (!this.decide(run.span)) return;
    this.run = run;
  }

  private runEnd(event: EventOf<'run.end'>): void {
    const run = this.run;
    if (!run) return;
    run.span.setAttributes({ 'murmur.run.status': event.status, ...usageAttributes(event.usage) });
    if (event.status !== 'completed') run.span.setStatus({ code: SpanStatusCode.ERROR, message: event.status });
    run.span.end();
    this.run = undefined;
  }

  /** An agent's parent: its swarm item's span, else its parent agent's, else the run's (or the remote item's). */
  private agentParent(event: EventOf<'agent.start'>): Context {
    const item =
      event.swarmId !== undefined && event.item !== undefined
        ? this.swarms.itemContext(event.swarmId, event.item)
        : undefined;
    if (item) return item;
    const parent = event.parentId !== undefined ? this.agents.get(event.parentId) : undefined;
    return parent?.context ?? this.run?.context ?? this.root;
  }

  private agentStart(event: EventOf<'agent.start'>): void {
    this.agents.get(event.agentId)?.span.end();
    const spec = event.model ?? this.input.model;
    const { provider, model } = providerAndModel(spec);
    const attributes: Attributes = {
      [OPERATION]: 'invoke_agent',
      [PROVIDER]: provider,
      [REQUEST_MODEL]: model,
      [AGENT_ID]: event.agentId,
      [AGENT_NAME]: event.role,
      [CONVERSATION_ID]: this.conversationOf(event.agentId),
      'murmur.agent.role': event.role,
    };
    if (event.parentId !== undefined) attributes['murmur.agent.parent_id'] = event.parentId;
    if (event.swarmId !== undefined) attributes['murmur.swarm.id'] = event.swarmId;
    if (event.resumed) attributes['murmur.agent.resumed'] = true;
    const open = this.start(`invoke_agent ${event.role}`, this.agentParent(event), attributes);
    if (!this.decide(open.span)) return;
    this.agents.set(event.agentId, { ...open, model: spec });
  }

  private agentEnd(event: EventOf<'agent.end'>): void {
    const agent = this.agents.get(event.agentId);
    if (!agent) return;
    for (const [key, span] of this.tools)
      if (key.startsWith(`${event.agentId}\u0000`)) {
        span.end();
        this.tools.delete(key);
      }
    this.chats.get(event.agentId)?.end();
    this.chats.delete(event.agentId);
    agent.span.setAttributes({
      ...usageAttributes(event.usage),
      'murmur.agent.status': event.status,
      'murmur.agent.turns': event.turns,
      'murmur.agent.tool_calls': event.toolCalls,
    });
    if (event.status !== 'completed') {
      agent.span.setAttribute(ERROR_TYPE, event.status);
      agent.span.setStatus({ code: SpanStatusCode.ERROR, message: event.reason ?? event.status });
    }
    agent.span.end();
    this.agents.delete(event.agentId);
  }

  /** An agent's conversation across resumes: its session's id and its own (agent ids repeat between sessions). */
  private conversationOf(agentId: string): string {
    return this.input.sessionId !== undefined ? `${this.input.sessionId}/${agentId}` : agentId;
  }

  private turnStart(event: EventOf<'turn.start'>): void {
    const agent = this.agents.get(event.agentId);
    const { provider, model } = providerAndModel(agent?.model ?? this.input.model);
    const attributes: Attributes = {
      [OPERATION]: 'chat',
      [PROVIDER]: provider,
      [REQUEST_MODEL]: model,
      'murmur.agent.id': event.agentId,
      'murmur.turn': event.turn,
      [CONVERSATION_ID]: this.conversationOf(event.agentId),
    };
    this.content?.inputOf(event.agentId, attributes);
    const { span } = this.start(
      `chat ${model}`,
      agent?.context ?? this.run?.context ?? this.root,
      attributes,
      SpanKind.CLIENT,
    );
    this.chats.get(event.agentId)?.end();
    this.chats.set(event.agentId, span);
  }

  private message(event: EventOf<'message'>): void {
    const { message, agentId } = event;
    if (message.role === 'assistant') {
      const chat = this.chats.get(agentId);
      if (chat) {
        // The model the server says answered (a dated version of the one asked for, say); nothing when it said none.
        if (message.responseModel !== undefined) chat.setAttribute(RESPONSE_MODEL, message.responseModel);
        if (message.responseId !== undefined) chat.setAttribute(RESPONSE_ID, message.responseId);
        chat.setAttribute(FINISH_REASONS, [finishReason(message.stopReason)]);
        this.content?.outputOf(message, chat);
      }
    }
    this.content?.add(agentId, message);
  }

  private turnEnd(event: EventOf<'turn.end'>): void {
    const chat = this.chats.get(event.agentId);
    if (!chat) return;
    if (event.usage) chat.setAttributes(usageAttributes(event.usage));
    if (event.server !== undefined) chat.setAttributes(serverAttributes(event.server));
    if (event.error !== undefined) {
      // The conventions' error.type: the HTTP status when there was one, else the kind of failure.
      chat.setAttribute(
        ERROR_TYPE,
        event.errorStatus !== undefined ? String(event.errorStatus) : (event.errorKind ?? '_OTHER'),
      );
      chat.setStatus({ code: SpanStatusCode.ERROR, message: event.error });
    }
    chat.end();
    this.chats.delete(event.agentId);
  }

  private toolStart(event: EventOf<'tool.start'>): void {
    const agent = this.agents.get(event.agentId);
    const attributes: Attributes = {
      [OPERATION]: 'execute_tool',
      [TOOL_NAME]: event.tool,
      [TOOL_CALL_ID]: event.callId,
      [TOOL_TYPE]: 'function',
      'murmur.agent.id': event.agentId,
    };
    if (event.via) attributes['murmur.tool.via'] = event.via;
    this.content?.argumentsOf(event, attributes);
    const { span } = this.start(
      `execute_tool ${event.tool}`,
      agent?.context ?? this.run?.context ?? this.root,
      attributes,
    );
    this.tools.set(`${event.agentId}\u0000${event.callId}`, span);
  }

  private toolEnd(event: EventOf<'tool.end'>): void {
    const key = `${event.agentId}\u0000${event.callId}`;
    const span = this.tools.get(key);
    if (!span) return;
    this.tools.delete(key);
    if (event.isError) {
      span.setAttribute(ERROR_TYPE, 'tool_error');
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(this.content && event.error !== undefined ? { message: event.error } : {}),
      });
    }
    // With content captured, the span ends when its result joins the conversation (the result is put on it).
    if (this.content && event.via === undefined) this.content.endWithResult(event.agentId, event.callId, span);
    else span.end();
  }
}
