// A verified swarm for the timeline suites: 14 items (one with a long path), a worker that reworks when its
// verifier fails it, and a verifier that fails one item in round 1 — so the timeline has verifiers, both verdicts,
// a second round, and (the model takes fewer requests at once than the swarm sends) 429s and capacity changes.
import type { Console } from './browser-setup.js';

export const LONG_ITEM = 'src/a/very/long/path/to/a/deeply/nested/module/with/a-long-file-name-13.ts';
export const ITEMS = [...Array.from({ length: 13 }, (_, i) => `f${i}.ts`), LONG_ITEM];
/** The item the verifier fails once (its row: verdict pass, round 2). */
export const REWORKED = 'f3.ts';

export const VERIFY_SCRIPT = {
  latencyMs: 0,
  // Fewer requests at once than the swarm asks for: 429s, items held back, the capacity line moving.
  rateLimit: { maxConcurrent: 3, retryAfterMs: 80 },
  agents: [
    {
      match: { role: 'worker', prompt: 'Check (\\S+)' },
      turns: [
        { latencyMs: 120, text: '$1 checked', usage: { input: 1000, output: 40 } },
        { latencyMs: 60, text: '$1 fixed', usage: { input: 300, output: 20 } },
      ],
    },
    {
      match: { role: 'verifier', prompt: `round 1\\)[\\s\\S]*<item>${REWORKED}</item>` },
      turns: [{ latencyMs: 40, text: 'VERDICT: fail\nnot good enough' }],
    },
    {
      match: { role: 'verifier' },
      turns: [{ latencyMs: 40, text: 'VERDICT: pass', usage: { input: 200, output: 5 } }],
    },
  ],
};

/** Runs the swarm with `murmur swarm --verify` and returns its session id. */
export async function runVerifiedSwarm(con: Console): Promise<string> {
  const r = await con.cli([
    'swarm',
    '--template',
    'Check {{item}}',
    '--items',
    ...ITEMS,
    '--verify',
    '--max-concurrency',
    '6',
    '--no-dashboard',
    '--json',
  ]);
  if (r.exitCode !== 0) throw new Error(`murmur swarm --verify exited ${r.exitCode}: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { sessionId?: string };
  if (!out.sessionId) throw new Error(`no sessionId in ${r.stdout.slice(0, 300)}`);
  return out.sessionId;
}
