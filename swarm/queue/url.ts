// The queue's address: `redis://[user:pass@]HOST:PORT[/DB]` or `rediss://…` (TLS), from --queue or MURMUR_QUEUE.
// It may hold a password, so it is only ever shown with the password hidden, and a connection is checked at
// once so a bad address, an unreachable server or a wrong password is a clear error within seconds.
import type { Redis as RedisClient } from 'ioredis';
import { importPeer, loadFailure } from '../../tools/optional-peer.js';

export type QueueUrl = { ok: true; url: string; shown: string } | { ok: false; error: string };

/** A checked, reachable queue: what a swarm whose items run on `murmur worker`s is given. */
export interface QueueTarget {
  /** The URL as given (it may hold a password: never printed or saved with one). */
  url: string;
  /** The URL with its password hidden. */
  shown: string;
  /** A new connection (BullMQ wants its own per Queue and QueueEvents). */
  open: () => RedisClient;
}

/** Query parameters ioredis reads credentials from (its parseURL copies the query into the options). */
const SECRET_PARAMS = new Set(['password', 'pass', 'auth']);

/** The URL with its password (in the authority or a `password`/`pass`/`auth` parameter) replaced by `***`, safe to print and log. */
export function hidePassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()])
      if (SECRET_PARAMS.has(key.toLowerCase())) parsed.searchParams.set(key, '***');
    // URLSearchParams encodes `*`; keep the mask readable.
    return parsed.toString().replaceAll('%2A%2A%2A', '***');
  } catch {
    // Not even a URL: hide anything between `:` and `@` in the authority, and secret parameters, all the same.
    return url
      .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@')
      .replace(/([?&](?:password|pass|auth)=)[^&#]*/gi, '$1***');
  }
}

/** Whether the URL holds a secret anywhere (never saved, and a warning when it is given on the command line). */
export function holdsSecret(url: string): boolean {
  return (
    hidePassword(url) !== url ||
    /[?&](?:password|pass|auth)=/i.test(url) ||
    /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^@/]*@/i.test(url)
  );
}

/** Checks the form of a queue URL; the error names it (password hidden) and what is accepted. */
export function parseQueueUrl(raw: string, from: string): QueueUrl {
  const shown = hidePassword(raw.trim());
  const accepted = 'expected redis://[user:password@]HOST:PORT[/DB] or rediss://… (TLS)';
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    return { ok: false, error: `${from} ${JSON.stringify(shown)} is not a URL; ${accepted}` };
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    return { ok: false, error: `${from} ${JSON.stringify(shown)} is not a Redis URL; ${accepted}` };
  if (!parsed.hostname) return { ok: false, error: `${from} ${JSON.stringify(shown)} names no host; ${accepted}` };
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db))
    return { ok: false, error: `${from} ${JSON.stringify(shown)}: the database "${db}" is not a number; ${accepted}` };
  return { ok: true, url: raw.trim(), shown };
}

/** Why a connection failed, in words a person can act on. */
function explain(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/WRONGPASS|NOAUTH|invalid username-password|AUTH.*failed/i.test(message))
    return `the password (or user) was refused: ${message}`;
  if (/DB index is out of range/i.test(message))
    return `the server has no such database (${message}); use a database number the server has (0 to 15 by default)`;
  if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EAI_AGAIN|timed? ?out|Connection is closed/i.test(message))
    return `the server cannot be reached: ${message}`;
  return message;
}

/**
 * Opens a connection for BullMQ (`maxRetriesPerRequest: null`, reconnecting for ever once it has worked) after
 * checking it answers a PING within `timeoutMs`; returns the error otherwise (never hangs).
 */
export async function connectQueue(
  url: string,
  shown: string,
  timeoutMs = 4000,
): Promise<{ ok: true; redis: RedisClient; open: () => RedisClient } | { ok: false; error: string }> {
  let Redis: typeof import('ioredis').Redis;
  try {
    ({ Redis } = await importPeer(() => import('ioredis'), 'ioredis', 'a queue swarm'));
  } catch (error) {
    return { ok: false, error: loadFailure('ioredis', error) };
  }
  // A short disconnectTimeout: a socket that never connected would otherwise keep the process up for 2 s.
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    disconnectTimeout: 50,
  });
  // The connection's own error says more than the rejected command ("Connection is closed").
  let cause: unknown;
  probe.on('error', (error) => (cause ??= error));
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)),
    );
    // The database is selected again here: that answer (not an event that may come later) says whether it exists.
    const db = Number(new URL(url).pathname.replace(/^\//, '') || '0');
    await Promise.race([
      probe
        .connect()
        .then(() => probe.select(db))
        .then(() => probe.ping()),
      late,
    ]);
    // ioredis reports a failed SELECT (a database the server does not have) as an error event and carries on
    // with the connection: BullMQ would then wait for ever. Anything the probe saw go wrong is a refusal.
    if (cause !== undefined) throw cause;
  } catch (error) {
    probe.disconnect();
    const why = explain(cause ?? error)
      .replaceAll(url, shown)
      .replace(/\.$/, '');
    return { ok: false, error: `cannot use the queue ${shown}: ${why}` };
  } finally {
    clearTimeout(timer);
  }
  probe.disconnect();
  const open = () => {
    const client = new Redis(url, {
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(times * 100, 2000),
    });
    // Reconnection is automatic; an error event without a listener would crash the process.
    client.on('error', () => undefined);
    return client;
  };
  return { ok: true, redis: open(), open };
}
