// A change's body as the console accepts it: exactly `Content-Type: application/json` (`text/plain;
// application/json` is what a cross-site page can send without asking first) holding one JSON object.
import type { Context } from 'hono';

/** The body's object, or undefined when it is not JSON or not an object. */
export async function jsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return undefined;
  try {
    const body = (await c.req.json()) as unknown;
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
