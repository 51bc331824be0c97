// A lease is bound to its agent: a verifier that reads a working worker's MURMUR_TOOLS_LEASE (as any process of
// the same user can, from /proc/PID/environ) and presents it from its own shell is refused with exit 4, and
// cannot run the MCP tool its role may not use. The worker's lease stays live meanwhile (its background
// command still runs) and keeps working in the worker's own shell.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../engine/helpers.js';
import { bridgeEngine, removeDir, runAgent, tempDir, toolTexts, writeMcpConfig, type BridgeEngine } from './helpers.js';

let dir: string;
let running: BridgeEngine | undefined;

beforeEach(async () => {
  dir = await tempDir('murmur-bridge-binding-');
  writeMcpConfig(dir);
});

afterEach(async () => {
  writeFileSync(path.join(dir, 'stop'), '');
  await running?.close();
  running = undefined;
  await removeDir(dir);
});

const ECHO = 'mcp__everything__echo';
const bash = (command: string, extra: Record<string, unknown> = {}) => ({
  toolCalls: [{ name: 'bash', arguments: { command, timeout: 60_000, ...extra } }],
});

describe("a worker's lease in a verifier's shell", () => {
  it(
    'is refused with exit 4 (it belongs to another agent) while the worker still uses it',
    { timeout: 60_000 },
    async () => {
      // The worker's background command holds its lease: it writes the lease out, then calls echo once the
      // verifier has tried, and waits for the test to stop it.
      const worker =
        'printf "%s\\n" "$MURMUR_TOOLS_LEASE" > worker-lease.txt; ' +
        'while [ ! -f tried ]; do sleep 0.05; done; ' +
        `murmur-tools call ${ECHO} --args '{"message":"still mine"}' > worker-call.txt 2>&1; echo "exit=$?" >> worker-call.txt; ` +
        // Also gone once the test's folder is (a stop written just before the folder went could be missed).
        'while [ ! -f stop ] && [ -d "$PWD" ]; do sleep 0.05; done';
      const verifier =
        `MURMUR_TOOLS_LEASE="$(cat worker-lease.txt)" murmur-tools call ${ECHO} --args '{"message":"borrowed"}'; ` +
        'echo "exit=$?"; touch tried';
      running = await bridgeEngine(
        dir,
        {
          agents: [
            {
              match: { role: 'worker' },
              turns: [bash(worker, { run_in_background: true, description: 'hold the lease' }), { text: 'started' }],
            },
            { match: { role: 'verifier' }, turns: [bash(verifier), { text: 'VERDICT: pass' }] },
          ],
        },
        { session: false },
      );
      const { engine, events } = running;
      const { result } = await runAgent(engine, 'worker', 'Hold your lease');
      expect(result.status).toBe('completed');
      await waitFor('the worker to write its lease', () => existsSync(path.join(dir, 'worker-lease.txt')));

      const checked = await runAgent(engine, 'verifier', 'Check the work');
      const [text] = toolTexts(checked.record.agent.state.messages);
      expect(text).toMatch(/murmur-tools: refused: this lease belongs to another agent/);
      expect(text).toContain('exit=4');
      expect(text).not.toContain('Echo: borrowed');
      const verifierId = checked.record.id;
      expect(events.some((e) => e.type === 'tool.start' && e.agentId === verifierId && e.tool === ECHO)).toBe(false);

      // The worker's own shell still reaches its endpoint with the same lease.
      const callFile = path.join(dir, 'worker-call.txt');
      await waitFor('the worker to call', () => existsSync(callFile) && /exit=\d/.test(readFileSync(callFile, 'utf8')));
      const call = readFileSync(callFile, 'utf8');
      expect(call).toContain('Echo: still mine');
      expect(call).toContain('exit=0');
    },
  );
});
