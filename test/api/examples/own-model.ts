// README example: your own model, a provider for an HTTP endpoint of your own.
import {
  createMurmur,
  errorKindForStatus,
  modelError,
  type AssistantMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelResult,
  type ToolCall,
} from '../../../api/index.js';

/** What the endpoint answers to POST { system, messages, tools }. */
interface Reply {
  text: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  usage?: { input: number; output: number };
}

export class HouseModel implements ModelProvider {
  readonly capabilities = { images: false, video: false, contextWindow: 32_000 };

  constructor(
    readonly name: string,
    private readonly url: string,
  ) {}

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult> {
    let reply: Reply;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools }),
        signal,
      });
      if (!response.ok)
        return modelError(errorKindForStatus(response.status), `${this.url} answered HTTP ${response.status}`, {
          status: response.status,
        });
      reply = (await response.json()) as Reply;
    } catch (error) {
      return signal.aborted ? modelError('aborted', 'aborted') : modelError('network', `${this.url}: ${String(error)}`);
    }
    request.onTextDelta?.(reply.text);
    const toolCalls: ToolCall[] = (reply.toolCalls ?? []).map((call, i) => ({
      id: `call_${request.messages.length}_${i}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    }));
    const message: AssistantMessage = {
      role: 'assistant',
      text: reply.text,
      toolCalls,
      stopReason: toolCalls.length > 0 ? 'tool_calls' : 'end',
      usage: { input: reply.usage?.input ?? 0, output: reply.usage?.output ?? 0, cacheRead: 0, cacheWrite: 0 },
      model: this.name,
    };
    return { ok: true, message };
  }
}

export async function askHouseModel(cwd: string, url: string, question: string): Promise<string> {
  const murmur = await createMurmur({ cwd, model: new HouseModel('house', url), sessions: false });
  try {
    const report = await murmur.run(question);
    return report.status === 'completed' ? report.result : `${report.status}: ${report.reason ?? ''}`;
  } finally {
    await murmur.close();
  }
}
