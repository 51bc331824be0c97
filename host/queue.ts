// A swarm's Redis queue as the front ends give it (a URL from a flag, an option or the environment): checked,
// probed once and turned into the target the launchers open; and what `murmur worker` runs on a machine.
import type { QueueTarget } from '../swarm/queue/url.js';
import type { Environment } from '../orchestrator/environment.js';

export type { QueueTarget };

export type QueueConnected = { ok: true; target: QueueTarget } | { ok: false; error: string };

/** Checks and probes a queue URL (`from` names where it came from in errors); the password never appears in them. */
export async function connectQueueTarget(raw: string, from: string): Promise<QueueConnected> {
  const { connectQueue, parseQueueUrl } = await import('../swarm/queue/url.js');
  const parsed = parseQueueUrl(raw, from);
  if (!parsed.ok) return parsed;
  const connected = await connectQueue(parsed.url, parsed.shown);
  if (!connected.ok) return connected;
  // The probe connection is not needed any more: BullMQ opens its own.
  connected.redis.disconnect();
  return { ok: true, target: { url: parsed.url, shown: parsed.shown, open: connected.open } };
}

/**
 * MURMUR_QUEUE as given: absent or empty = no queue; blanks only is a mistake (a shell line that lost its value),
 * said rather than silently running in this process.
 */
export function queueUrlFromEnv(
  env: Environment,
): { ok: true; url: string | undefined } | { ok: false; error: string } {
  const raw = env.MURMUR_QUEUE;
  if (raw === undefined || raw === '') return { ok: true, url: undefined };
  if (raw.trim() === '') {
    return {
      ok: false,
      error: `MURMUR_QUEUE=${JSON.stringify(raw)} holds only blanks; give a Redis URL (redis://[user:password@]HOST:PORT[/DB]) or unset it to run the items in this process`,
    };
  }
  return { ok: true, url: raw.trim() };
}

/** Whether a queue URL holds a password (a command line is readable by every process of the machine). */
export async function queueUrlHoldsSecret(raw: string): Promise<boolean> {
  const { holdsSecret, parseQueueUrl } = await import('../swarm/queue/url.js');
  const parsed = parseQueueUrl(raw, 'queue');
  return parsed.ok && holdsSecret(parsed.url);
}

/** The worker of `murmur worker` and the repository it serves (loaded only by that command). */
export async function loadQueueWorker() {
  const [{ QueueWorker }, { repoRoot }] = await Promise.all([
    import('../swarm/queue/worker.js'),
    import('../swarm/git.js'),
  ]);
  return { QueueWorker, repoRoot };
}
