// murmur-tools end to end: scripted agents whose bash calls the real everything MCP server through the
// command on PATH, decided as if the agent had made the call in its catalog (role caps, approvals asked as the
// agent, the result budget), with a lease that ends with the agent.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../orchestrator/engine.js';
import { createPermissionSetup } from '../../orchestrator/permissions/setup.js';
import type { AgentProfile } from '../../roles/profile.js';
import { createResultBudget } from '../../tools/budget.js';
import { acquireLeaseServer, releaseLeaseServer } from '../../tools/bridge/lease-server.js';
import { createSkillCatalog, loadSkills } from '../../tools/interact/skills.js';
import { waitFor } from '../engine/helpers.js';
import { FakeUser } from '../permissions/helpers.js';
import {
  bridgeEngine,
  childPids,
  openFds,
  removeDir,
  runAgent,
  runCommand,
  tempDir,
  toolTexts,
  writeMcpConfig,
  type BridgeEngine,
} from './helpers.js';

let dir: string;
let running: BridgeEngine | undefined;

beforeEach(async () => {
  dir = await tempDir('murmur-bridge-');
  writeMcpConfig(dir);
});

afterEach(async () => {
  await running?.close();
  running = undefined;
  await removeDir(dir);
});

const bash = (command: string, extra: Record<string, unknown> = {}) => ({
  toolCalls: [{ name: 'bash', arguments: { command, timeout: 60_000, ...extra } }],
});
const ECHO = 'mcp__everything__echo';

describe('murmur-tools in a worker', () => {
  it('lists, shows and calls MCP tools; bad arguments exit 2; spills and media go to tool-outputs; the lease ends with the agent', async () => {
    writeFileSync(path.join(dir, 'big.json'), JSON.stringify({ message: 'x'.repeat(2_000) }));
    const skills = createSkillCatalog(
      (await loadSkills({ workspaceRoot: dir, homeDir: path.join(dir, '.home'), builtin: true })).skills,
    );
    running = await bridgeEngine(
      dir,
      {
        agents: [
          {
            match: { role: 'worker', prompt: 'Use the bridge' },
            turns: [
              bash(`murmur-tools call ${ECHO} --args '{"message":"hello bridge"}'; echo "exit=$?"`),
              bash('murmur-tools tools --keyword echo'),
              bash(`murmur-tools tool ${ECHO}`),
              bash(`murmur-tools call ${ECHO} --args '{"mesage":"typo"}'; echo "exit=$?"`),
              bash(`murmur-tools call mcp__everything__no-such-tool; echo "exit=$?"`),
              bash(
                `echo '{"message":"from stdin"}' | murmur-tools call ${ECHO} --args -; murmur-tools call ${ECHO} --args-file big.json > spilled.txt; echo "exit=$?"`,
              ),
              bash('murmur-tools call mcp__everything__get-tiny-image; echo "exit=$?"'),
              bash(
                'printf "%s\\n%s\\n%s\\n" "$MURMUR_TOOLS_LEASE" "$MURMUR_TOOLS_ENDPOINT" "$(command -v murmur-tools)" > lease.txt; env | grep -c _API_KEY || true',
              ),
              { text: 'done' },
            ],
          },
        ],
      },
      {
        interaction: { skills },
        registry: { skills: true },
        resultBudget: (_record, hasRead) =>
          createResultBudget({
            agentHasRead: hasRead,
            toolOutputsDir: running!.engine.session!.toolOutputsDir,
            spillChars: 1_000,
          }),
      },
    );
    const { engine, events } = running;
    process.env.MURMUR_TEST_API_KEY = 'secret';
    const { record, result } = await runAgent(engine, 'worker', 'Use the bridge');
    delete process.env.MURMUR_TEST_API_KEY;
    expect(result.status).toBe('completed');
    const out = toolTexts(record.agent.state.messages);

    expect(out[0]).toContain('Echo: hello bridge');
    expect(out[0]).toContain('exit=0');
    expect(out[1]).toMatch(new RegExp(`^${ECHO}  \\S`, 'm'));
    expect(out[1]).not.toContain('get-tiny-image');
    expect(out[2]).toContain('Parameters (JSON Schema):');
    expect(out[2]).toContain('"message"');
    expect(out[2]).toContain(`murmur-tools call ${ECHO} --args '{"message":`);
    expect(out[3]).toMatch(/Invalid arguments for tool "mcp__everything__echo": \/message: is required/);
    expect(out[3]).toContain('exit=2');
    expect(out[4]).toMatch(/no tool is named "mcp__everything__no-such-tool"/);
    expect(out[4]).toContain('exit=2');
    expect(out[5]).toContain('Echo: from stdin');
    expect(out[5]).toContain('exit=0');
    // Past the budget: the same receipt as in the catalog, the full text in the session's tool-outputs.
    const spilled = readFileSync(path.join(dir, 'spilled.txt'), 'utf8');
    expect(spilled).toMatch(/This result was too large to show/);
    const outputs = engine.session!.toolOutputsDir;
    const spillFile = /saved in full to (\S+)/.exec(spilled)![1]!;
    expect(path.dirname(spillFile)).toBe(outputs);
    expect(readFileSync(spillFile, 'utf8')).toBe(`Echo: ${'x'.repeat(2_000)}`);
    expect(out[6]).toMatch(/\[image \(image\/png, \d+ bytes\) saved to (\S+)\]/);
    const image = /saved to (\S+)\]/.exec(out[6]!)![1]!;
    expect(path.dirname(image)).toBe(outputs);
    expect(readFileSync(image).subarray(1, 4).toString()).toBe('PNG');
    expect(out[7]!.trim().split('\n')[0]).toBe('0');

    // Shell calls are events like catalog calls, marked as coming from the shell.
    const shellStarts = events.filter((e) => e.type === 'tool.start' && (e as { via?: string }).via === 'shell');
    expect(shellStarts.map((e) => (e as { tool: string }).tool)).toContain(ECHO);
    expect(
      events.some(
        (e) =>
          e.type === 'tool.end' &&
          (e as { via?: string }).via === 'shell' &&
          (e as { isError: boolean }).isError === false,
      ),
    ).toBe(true);
    // The skill is listed to this worker (it has MCP tools to reach).
    expect(running.systems.get(record.id)).toMatch(/- murmur-tools: /);

    const [token, endpoint, command] = readFileSync(path.join(dir, 'lease.txt'), 'utf8').trim().split('\n');
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const saved = await runCommand(command!, ['tools'], {
      MURMUR_TOOLS_LEASE: token,
      MURMUR_TOOLS_ENDPOINT: endpoint,
      PATH: process.env.PATH,
    });
    expect(saved.code).toBe(4);
    expect(saved.stderr).toMatch(/lease is not valid/);
    const forged = await runCommand(command!, ['call', ECHO, '--args', '{"message":"x"}'], {
      MURMUR_TOOLS_LEASE: 'forged-token-forged-token',
      MURMUR_TOOLS_ENDPOINT: endpoint,
      PATH: process.env.PATH,
    });
    expect(forged.code).toBe(4);
    const none = await runCommand(command!, ['tools'], { PATH: process.env.PATH });
    expect(none.code).toBe(4);
  });

  it("refuses calls the role or the definition's mcpServers forbid with exit 3 naming the reason; opted-out agents get no lease", async () => {
    const quiet: AgentProfile = {
      name: 'quiet',
      description: 'No bridge',
      role: 'custom',
      prompt: 'You work quietly.',
      builtin: false,
      shellBridge: false,
    };
    const narrow: AgentProfile = {
      name: 'narrow',
      description: 'Other servers only',
      role: 'custom',
      prompt: 'You use one server.',
      builtin: false,
      mcpServers: ['github'],
      path: '/agents/narrow.md',
    };
    running = await bridgeEngine(
      dir,
      {
        agents: [
          {
            match: { role: 'verifier' },
            turns: [
              bash(`murmur-tools call ${ECHO} --args '{"message":"hi"}'; echo "exit=$?"`),
              { text: 'VERDICT: pass' },
            ],
          },
          {
            match: { role: 'quiet' },
            turns: [
              bash('echo "lease=${MURMUR_TOOLS_LEASE:-none}"; command -v murmur-tools || echo missing'),
              { text: 'ok' },
            ],
          },
          {
            match: { role: 'narrow' },
            turns: [bash(`murmur-tools call ${ECHO} --args '{"message":"hi"}'; echo "exit=$?"`), { text: 'ok' }],
          },
        ],
      },
      {
        definitions: new Map([
          ['quiet', quiet],
          ['narrow', narrow],
        ]),
        session: false,
      },
    );
    const { engine } = running;
    const verifier = await runAgent(engine, 'verifier', 'Check the work');
    const [text] = toolTexts(verifier.record.agent.state.messages);
    expect(text).toContain('exit=3');
    expect(text).toMatch(
      /refused: mcp__everything__echo is not available to the verifier agent: the verifier role may not use it/,
    );
    expect(running.systems.get(verifier.record.id)).not.toContain('murmur-tools');

    const limited = await runAgent(engine, 'narrow', 'Do it');
    expect(toolTexts(limited.record.agent.state.messages)[0]).toMatch(
      /refused: .*not in the agent definition's mcpServers list \(\/agents\/narrow.md\)[\s\S]*exit=3/,
    );

    const optedOut = await runAgent(engine, 'quiet', 'Do it');
    const [quietText] = toolTexts(optedOut.record.agent.state.messages);
    expect(quietText).toContain('lease=none');
    expect(quietText).toContain('missing');
  });

  it('offers MCP tools deferred behind tool_search too', async () => {
    running = await bridgeEngine(
      dir,
      {
        agents: [
          {
            match: { role: 'worker' },
            turns: [
              bash(`murmur-tools tools --keyword echo && murmur-tools call ${ECHO} --args '{"message":"deferred"}'`),
              { text: 'ok' },
            ],
          },
        ],
      },
      { config: { mcp: { disclosure: { models: ['*'], thresholdPct: 0.0001 } } }, session: false },
    );
    const { record } = await runAgent(running.engine, 'worker', 'Find echo');
    expect(running.catalogs.get(record.id)).toContain('tool_search');
    expect(running.catalogs.get(record.id)).not.toContain(ECHO);
    const [text] = toolTexts(record.agent.state.messages);
    expect(text).toContain(`${ECHO}  Echoes back`);
    expect(text).toContain('Echo: deferred');
  });

  it('is off everywhere with [tools] shellBridge = false', async () => {
    running = await bridgeEngine(
      dir,
      {
        agents: [
          { match: { role: 'worker' }, turns: [bash('echo "lease=${MURMUR_TOOLS_LEASE:-none}"'), { text: 'ok' }] },
        ],
      },
      {
        config: { tools: { shellBridge: false } },
        session: false,
      },
    );
    expect(running.engine.shellBridge).toBeUndefined();
    const { record } = await runAgent(running.engine, 'worker', 'Do it');
    expect(toolTexts(record.agent.state.messages)[0]).toContain('lease=none');
  });

  it('asks for approval as the agent in manual mode; a denial exits 3', async () => {
    const user = new FakeUser({
      approve: (request) => (request.tool === 'bash' ? { kind: 'allow_once' } : { kind: 'deny' }),
    });
    let engine: Engine | undefined;
    // everything's echo is marked read-only, which manual mode lets through: an ask rule makes it ask.
    const setup = createPermissionSetup({
      workspaceRoot: dir,
      mode: 'manual',
      asker: user,
      config: { permissions: { ask: [ECHO] } },
      agents: (id) => engine?.agentTree.get(id),
    });
    running = await bridgeEngine(
      dir,
      {
        agents: [
          {
            match: { role: 'worker' },
            turns: [bash(`murmur-tools call ${ECHO} --args '{"message":"may I"}'; echo "exit=$?"`), { text: 'asked' }],
          },
        ],
      },
      { permission: setup.permission, extraVetoes: setup.extraVetoes, session: false },
    );
    engine = running.engine;
    const { record } = await runAgent(engine, 'worker', 'Ask first');
    const [text] = toolTexts(record.agent.state.messages);
    expect(text).toContain('exit=3');
    expect(text).toMatch(/refused: /);
    const asked = user.approvals.find((request) => request.tool === ECHO);
    expect(asked).toBeDefined();
    expect(asked!.requester).toMatchObject({ agentId: record.id, role: 'worker' });
    expect(asked!.summary).toContain('may I');
  });

  it(
    'a background loop of 200 calls: every result right, no socket or process left behind',
    { timeout: 180_000 },
    async () => {
      // Held by the test, so the engine's close leaves it running and the counts compare like with like.
      const server = await acquireLeaseServer();
      const fdsBefore = openFds();
      const childrenBefore = childPids();
      const loop =
        'for i in $(seq 1 200); do murmur-tools call mcp__everything__echo --args "{\\"message\\":\\"m$i\\"}" || echo "failed $i"; done > loop.txt 2>&1';
      running = await bridgeEngine(
        dir,
        {
          agents: [
            {
              match: { role: 'main' },
              turns: [
                bash(loop, { run_in_background: true, description: 'bridge loop', timeout: 170_000 }),
                { text: 'started' },
                { text: 'loop done' },
              ],
            },
          ],
        },
        { session: false },
      );
      const outcome = await running.engine.runTask('Loop through the bridge');
      expect(outcome.result).toBe('loop done');
      const lines = readFileSync(path.join(dir, 'loop.txt'), 'utf8').trim().split('\n');
      expect(lines).toEqual(Array.from({ length: 200 }, (_, i) => `Echo: m${i + 1}`));
      await running.close();
      running = undefined;
      await waitFor('every connection to close', () => server.openConnections === 0);
      await waitFor('the MCP server to exit', () => childPids().length <= childrenBefore.length, 10_000);
      expect(childPids().sort()).toEqual(childrenBefore.sort());
      await waitFor('file descriptors to close', () => openFds() <= fdsBefore, 10_000);
      expect(readdirSync(server.binDir)).toEqual(['murmur-tools']);
      await releaseLeaseServer();
      expect(existsSync(server.dir)).toBe(false);
    },
  );
});
