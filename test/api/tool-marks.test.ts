// A host's tools in code: `readOnly` runs without asking in any mode, `needsApproval` asks in every mode (yolo too)
// and is refused when nobody can answer, `needsApproval: false` never asks, deny rules still win; bad names and
// unknown roles are MurmurOptionsError naming the entry.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMurmur,
  defineTool,
  MurmurOptionsError,
  textResult,
  Type,
  type ApprovalRequest,
  type MurmurOptions,
} from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-tool-marks-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function toolWith(def: {
  name?: string;
  readOnly?: boolean;
  needsApproval?: boolean | ((a: { n: number }) => boolean);
}) {
  const ran: number[] = [];
  const tool = defineTool({
    def: {
      name: def.name ?? 'stamp',
      description: 'Stamps a number.',
      parameters: Type.Object({ n: Type.Number() }),
      ...(def.readOnly !== undefined ? { readOnly: def.readOnly } : {}),
      ...(def.needsApproval !== undefined ? { needsApproval: def.needsApproval } : {}),
    },
    execute: (_ctx, { n }) => {
      ran.push(n);
      return textResult(`stamped ${n}`);
    },
  });
  return { tool, ran };
}

const callsStamp = (...ns: number[]) =>
  scriptedModel({
    agents: [
      {
        turns: [...ns.map((n) => ({ toolCalls: [{ name: 'stamp', arguments: { n } }] })), { text: 'done' }],
      },
    ],
  });

async function runWith(options: Omit<MurmurOptions, 'cwd'>): Promise<void> {
  const murmur = await createMurmur({ cwd: dir, sessions: false, ...options });
  try {
    const report = await murmur.run('stamp');
    expect(report.status).toBe('completed');
  } finally {
    await murmur.close();
  }
}

describe("a host tool's marks", () => {
  it('readOnly runs without asking in manual mode, with nobody to ask', async () => {
    const { tool, ran } = toolWith({ readOnly: true });
    await runWith({ model: callsStamp(1), permissionMode: 'manual', tools: [{ tool, roles: ['main'] }] });
    expect(ran).toEqual([1]);
  });

  it('without marks, manual mode with nobody to ask refuses it', async () => {
    const { tool, ran } = toolWith({});
    await runWith({ model: callsStamp(1), permissionMode: 'manual', tools: [{ tool, roles: ['main'] }] });
    expect(ran).toEqual([]);
  });

  it('needsApproval as a function asks in yolo mode for the calls it names; a denial keeps the call from running', async () => {
    const { tool, ran } = toolWith({ needsApproval: ({ n }) => n > 10 });
    const asked: ApprovalRequest[] = [];
    await runWith({
      model: callsStamp(1, 50),
      permissionMode: 'yolo',
      tools: [{ tool, roles: ['main'] }],
      onApproval: (request) => {
        asked.push(request);
        return { kind: 'deny', feedback: 'not above ten' };
      },
    });
    expect(ran).toEqual([1]);
    expect(asked.map((r) => [r.tool, r.summary, r.reason])).toEqual([
      ['stamp', 'stamp {"n":50}', "stamp's definition asks for approval"],
    ]);
  });

  it('needsApproval: true with nobody to ask is refused; a test that throws asks; false never asks', async () => {
    const always = toolWith({ needsApproval: true });
    await runWith({ model: callsStamp(1), permissionMode: 'yolo', tools: [{ tool: always.tool, roles: ['main'] }] });
    expect(always.ran).toEqual([]);

    const throwing = toolWith({
      needsApproval: () => {
        throw new Error('cannot tell');
      },
    });
    let asked = 0;
    await runWith({
      model: callsStamp(2),
      permissionMode: 'yolo',
      tools: [{ tool: throwing.tool, roles: ['main'] }],
      onApproval: () => {
        asked++;
        return { kind: 'allow_once' };
      },
    });
    expect([asked, throwing.ran]).toEqual([1, [2]]);

    const never = toolWith({ needsApproval: false });
    await runWith({ model: callsStamp(3), permissionMode: 'manual', tools: [{ tool: never.tool, roles: ['main'] }] });
    expect(never.ran).toEqual([3]);
  });

  it('a deny rule wins over readOnly', async () => {
    const { tool, ran } = toolWith({ readOnly: true });
    await runWith({
      model: callsStamp(1),
      permissionMode: 'yolo',
      permissions: { deny: ['stamp'] },
      tools: [{ tool, roles: ['main'] }],
    });
    expect(ran).toEqual([]);
  });
});

describe('bad tools are named', () => {
  async function optionError(options: Omit<MurmurOptions, 'cwd'>): Promise<MurmurOptionsError> {
    const error = await createMurmur({ cwd: dir, model: callsStamp(), ...options }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MurmurOptionsError);
    return error as MurmurOptionsError;
  }

  it('a name models do not accept, and an unknown role', async () => {
    const spaced = await optionError({ tools: [{ tool: toolWith({ name: 'has space' }).tool, roles: ['worker'] }] });
    expect(spaced.option).toBe('tools[0].tool.def.name');
    expect(spaced.message).toContain('1 to 64 letters, digits, _ or -');
    const typo = await optionError({ tools: [{ tool: toolWith({}).tool, roles: ['worker', 'wrker'] }] });
    expect(typo.option).toBe('tools[0].roles[1]');
    expect(typo.message).toContain('"wrker" is not a role or a defined agent; known: explore, worker, coder, verifier');
  });

  it('a name murmur gives one of its own tools (mcp_invoke would be read as a call of the MCP tool it names)', async () => {
    for (const name of ['read', 'final_answer', 'tool_search', 'mcp_invoke', 'exit_plan_mode']) {
      const taken = await optionError({ tools: [{ tool: toolWith({ name }).tool, roles: ['worker'] }] });
      expect(taken.option).toBe('tools[0]');
      expect(taken.message).toContain(`"${name}" is the name of a built-in tool; choose another.`);
    }
  });
});

describe('mcpServers entries are checked as .mcp.json entries', () => {
  it('a bad or unknown field names the entry and the field', async () => {
    const fails = async (mcpServers: unknown) => {
      const error = await createMurmur({ cwd: dir, model: callsStamp(), mcpServers: mcpServers as never }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MurmurOptionsError);
      return error as MurmurOptionsError;
    };
    const typo = await fails({ files: { comand: 'npx', args: ['server-filesystem'] } });
    expect(typo.option).toMatch(/^mcpServers\.files/);
    expect(typo.message).toContain('comand');
    const args = await fails({ files: { command: 'npx', args: 'server-filesystem' } });
    expect(args.option).toBe('mcpServers.files.args');
    const url = await fails({ web: { url: 'ftp://example.com' } });
    expect(url.option).toBe('mcpServers.web.url');
    expect(url.message).toContain('http or https');
    const fine = await createMurmur({
      cwd: dir,
      model: callsStamp(),
      mcpServers: { web: { url: 'http://127.0.0.1:9/mcp' } },
    });
    await fine.close();
  });
});
