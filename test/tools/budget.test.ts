import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeToolBatch, type BatchHooks } from '../../orchestrator/tool-batch.js';
import {
  createResultBudget,
  resultBudgetStage,
  DEFAULT_SPILL_CHARS,
  SPILL_FAILURE_PREVIEW_CHARS,
} from '../../tools/budget.js';
import type { RuntimeTool, ToolResult } from '../../tools/contract.js';
import { READ_RESULT_MAX_CHARS } from '../../tools/fs/read.js';
import { createBashTool, grepTool, readTool } from '../../tools/workspace-tools.js';
import { call, contextFor, removeDir, tempDir, text } from './helpers.js';

let root: string;
let outputs: string;

beforeAll(async () => {
  root = await tempDir();
  outputs = path.join(root, '.murmur', 'sessions', 's1', 'tool-outputs');
});

afterAll(async () => {
  await removeDir(root);
});

const bigText = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `row ${i + 1}: ${'data '.repeat(10)}`).join('\n');
const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };

describe('result budget', () => {
  it('fits the after-call stages of the tool batch', () => {
    const stages: BatchHooks['afterCall'] = [resultBudgetStage(createResultBudget({ agentHasRead: true }), 'a1')];
    expect(stages[0]!.name).toBe('result budget');
    expect(DEFAULT_SPILL_CHARS).toBeGreaterThan(READ_RESULT_MAX_CHARS);
  });

  it('spills a large result to tool-outputs/<callId>.txt with a receipt, keeping media', async () => {
    const budget = createResultBudget({ agentHasRead: true, toolOutputsDir: outputs, spillChars: 10_000 });
    const full = bigText(2_000);
    const result: ToolResult = { content: [{ type: 'text', text: full }, image], details: { kept: true } };
    const after = await budget({ id: 'call_42', name: 'bash' }, undefined, result);
    const file = path.join(outputs, 'call_42.txt');
    expect(await readFile(file, 'utf8')).toBe(full);
    const receipt = text(after);
    expect(receipt).toContain(file);
    expect(receipt).toContain(`${full.length} characters`);
    expect(receipt).toContain('2000 lines');
    expect(receipt).toMatch(/before answering or searching elsewhere/);
    expect(receipt).toMatch(/grep/);
    expect(receipt).toMatch(/read .*line_offset, n_lines/);
    expect(receipt).toMatch(/Do not read the whole file in one call/);
    expect(receipt).toMatch(/keep reading it in bounded ranges until you have read it all/);
    expect(receipt.length).toBeLessThan(3_000);
    expect(after.content[1]).toEqual(image);
    expect(after.details).toEqual({ kept: true });
  });

  it('lets the agent recover facts from the spill file with grep and read', async () => {
    const budget = createResultBudget({ agentHasRead: true, toolOutputsDir: outputs, spillChars: 10_000 });
    await budget({ id: 'call_43', name: 'bash' }, undefined, { content: [{ type: 'text', text: bigText(3_000) }] });
    const ctx = contextFor(root, { session: { dir: path.dirname(outputs), toolOutputsDir: outputs } });
    const file = path.join(outputs, 'call_43.txt');
    const found = await call(grepTool, ctx, { pattern: '^row 2345:', path: file, output_mode: 'content' });
    expect(text(found)).toContain(':2345:row 2345:');
    const range = await call(readTool, ctx, { path: file, line_offset: 2345, n_lines: 2 });
    expect(text(range)).toContain('  2345\trow 2345:');
  });

  it('never spills a read result within read limits, even with a small spill limit', async () => {
    const budget = createResultBudget({
      agentHasRead: true,
      toolOutputsDir: outputs,
      spillChars: 1_000,
      maxResultChars: 1_000,
    });
    const readText = 'x'.repeat(READ_RESULT_MAX_CHARS - 10);
    const after = await budget({ id: 'call_read', name: 'read' }, undefined, {
      content: [{ type: 'text', text: readText }],
    });
    expect(text(after)).toBe(readText);
  });

  it('without read, cuts the middle at the per-result cap and says so', async () => {
    const budget = createResultBudget({
      agentHasRead: false,
      toolOutputsDir: outputs,
      maxResultChars: 1_000,
      spillChars: 500,
    });
    const full = `HEAD${'m'.repeat(10_000)}TAIL`;
    const after = await budget({ id: 'call_cap', name: 'bash' }, undefined, {
      content: [{ type: 'text', text: full }],
    });
    const cut = text(after);
    expect(cut.startsWith('HEAD')).toBe(true);
    expect(cut.endsWith('TAIL')).toBe(true);
    expect(cut).toContain(`characters cut from the middle (per-result limit of 1000 characters)`);
    expect(cut.length).toBeLessThan(1_200);
  });

  it('leaves small results alone', async () => {
    const budget = createResultBudget({ agentHasRead: true, toolOutputsDir: outputs });
    const result: ToolResult = { content: [{ type: 'text', text: 'small' }] };
    expect(await budget({ id: 'c', name: 'bash' }, undefined, result)).toBe(result);
  });

  it('falls back to a 2 KiB head-and-tail preview when the spill file cannot be written', async () => {
    const budget = createResultBudget({
      agentHasRead: true,
      toolOutputsDir: path.join(root, 'not-a-dir.txt', 'x'),
      spillChars: 5_000,
    });
    await writeFile(path.join(root, 'not-a-dir.txt'), 'file');
    const full = `HEAD${'m'.repeat(50_000)}TAIL`;
    const preview = text(
      await budget({ id: 'call_y', name: 'bash' }, undefined, { content: [{ type: 'text', text: full }] }),
    );
    expect(preview.startsWith('HEAD')).toBe(true);
    expect(preview.endsWith('TAIL')).toBe(true);
    expect(preview).toContain('could not be saved');
    expect(preview.length).toBeLessThan(SPILL_FAILURE_PREVIEW_CHARS + 400);
  });

  it('works as an after-call stage of a real tool batch, naming the spill file after the agent and the call', async () => {
    const tools = new Map<string, RuntimeTool>([
      ['bash', createBashTool()],
      ['read', readTool],
    ]);
    const [message] = await executeToolBatch(
      [{ id: 'call_batch', name: 'bash', arguments: JSON.stringify({ command: 'seq 1 40000' }) }],
      {
        tools,
        context: { agentId: 'a1', role: 'worker', cwd: root },
        signal: new AbortController().signal,
        hooks: {
          afterCall: [
            resultBudgetStage(
              createResultBudget({ agentHasRead: true, toolOutputsDir: outputs, spillChars: 50_000 }),
              'a1',
            ),
          ],
        },
      },
    );
    const receipt = message!.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(receipt).toContain(path.join(outputs, 'a1-call_batch.txt'));
    const saved = await readFile(path.join(outputs, 'a1-call_batch.txt'), 'utf8');
    expect(saved.startsWith('1\n2\n3\n')).toBe(true);
    expect(saved).toContain('\n40000\n\nExit code 0.');
  });
});
