// Progress notifications for a `murmur mcp serve` request, from its engine's bus: sent only when the client asked
// for them (a progressToken), always growing, with items done as the progress of a swarm.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { EventBus } from '../host/event-bus.js';
import { plural } from '../dashboards/plural.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

type ProgressSend = (progress: number, message: string, total?: number) => void;

/** Sends notifications/progress for this request when the client asked for them (a progressToken). */
export function progressSender(extra: Extra): ProgressSend | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = Number.NEGATIVE_INFINITY;
  return (progress, message, total) => {
    // The protocol wants every notification's progress to be larger than the one before.
    if (progress <= last) return;
    last = progress;
    const params = { progressToken: token, progress, message, ...(total !== undefined ? { total } : {}) };
    extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
  };
}

/**
 * Progress from the bus. Without a total (run_agent) every step counts one. With a total (run_swarm's items)
 * progress is the number of items done, and steps in between move it by ever smaller fractions, so it keeps
 * growing without ever passing the next item.
 */
export function followProgress(bus: EventBus, send: ProgressSend | undefined, total: number | undefined): () => void {
  if (!send) return () => {};
  let steps = 0;
  let done = 0;
  let since = 0;
  const step = (message: string) => {
    if (total !== undefined && done >= total) return;
    steps++;
    since++;
    send(total === undefined ? steps : done + since / (since + 1), message, total);
  };
  const offs = [
    bus.on('agent.start', (e) =>
      step(
        `agent ${e.agentId} (${e.role}) started${e.item !== undefined ? ` on ${e.item}` : e.description && e.description !== e.agentId ? `: ${e.description}` : ''}`,
      ),
    ),
    bus.on('agent.end', (e) =>
      step(`agent ${e.agentId} (${e.role}) ended ${e.status}${e.reason ? `: ${e.reason.slice(0, 200)}` : ''}`),
    ),
    bus.on('tool.start', (e) => step(`agent ${e.agentId}: ${e.tool}`)),
    bus.on('swarm.item', (e) => {
      if (e.state === 'completed' || e.state === 'failed' || e.state === 'aborted' || e.state === 'conflict') {
        if (total === undefined) return step(`item ${e.item} ${e.state}`);
        done++;
        since = 0;
        steps++;
        send(done, `${done}/${plural(total, 'item')} done (last: ${e.item} ${e.state})`, total);
      } else if (e.state === 'rate_limited' || e.state === 'verifying')
        step(`item ${e.item} ${e.state.replace('_', ' ')}`);
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}
