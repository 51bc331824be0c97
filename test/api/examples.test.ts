// The README's three "Use it from code" examples, run as written on the scripted model in temp workspaces
// (the model comes from MURMUR_MODEL, as it would for a user).
import { readSessionTranscripts } from '../../orchestrator/session.js';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { convertToEsm } from './examples/refactor-batch.js';
import { research } from './examples/research-fanout.js';
import { closed, fixTickets } from './examples/custom-tool.js';

let dir: string;
const savedModel = process.env.MURMUR_MODEL;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-api-')));
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(async () => {
  vi.restoreAllMocks();
  if (savedModel === undefined) delete process.env.MURMUR_MODEL;
  else process.env.MURMUR_MODEL = savedModel;
  await rm(dir, { recursive: true, force: true });
});

function useScript(script: unknown): void {
  writeFileSync(path.join(dir, 'script.json'), JSON.stringify(script));
  process.env.MURMUR_MODEL = `scripted:${path.join(dir, 'script.json')}`;
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

const convert = (file: string, from: string, to: string) => ({
  match: { role: 'worker', prompt: `Convert ${file.replace('.', '\\.')} ` },
  turns: [
    { toolCalls: [{ name: 'edit', arguments: { path: file, old_string: from, new_string: to } }] },
    { text: `Converted ${file}.` },
  ],
});

describe('README examples', () => {
  it('a refactor batch with verifiers edits every file and reports each verdict', async () => {
    write('src/a.js', "const x = require('./x');\nmodule.exports = x;\n");
    write('src/b.js', "const y = require('./y');\nmodule.exports = y;\n");
    useScript({
      agents: [
        convert(
          'src/a.js',
          "const x = require('./x');\nmodule.exports = x;\n",
          "import x from './x.js';\nexport default x;\n",
        ),
        convert(
          'src/b.js',
          "const y = require('./y');\nmodule.exports = y;\n",
          "import y from './y.js';\nexport default y;\n",
        ),
        {
          match: { role: 'verifier' },
          turns: [
            { toolCalls: [{ name: 'grep', arguments: { pattern: 'require\\(' } }] },
            { text: 'VERDICT: pass\nNo require left.' },
          ],
        },
      ],
    });
    expect(await convertToEsm(dir, ['src/a.js', 'src/b.js'])).toBe(true);
    expect(readFileSync(path.join(dir, 'src/a.js'), 'utf8')).toContain("import x from './x.js'");
    expect(readFileSync(path.join(dir, 'src/b.js'), 'utf8')).toContain('export default y');
    expect(console.log).toHaveBeenCalledWith('src/a.js: completed (verifier: pass)');
  });

  it('a research fan-out returns the answers as data and leaves nothing on disk', async () => {
    write('src/db.ts', 'export const pool = 10;\n');
    useScript({
      agents: [
        {
          match: { role: 'explore', prompt: 'pool size' },
          turns: [
            { toolCalls: [{ name: 'grep', arguments: { pattern: 'pool' } }] },
            { text: 'The pool holds 10 connections (src/db.ts).' },
          ],
        },
        { match: { role: 'explore', prompt: 'cache' }, turns: [{ text: 'There is no cache.' }] },
      ],
    });
    const { answers, summary, progress } = await research(dir, ['What is the pool size?', 'Where is the cache?']);
    expect(answers).toEqual({
      'What is the pool size?': 'The pool holds 10 connections (src/db.ts).',
      'Where is the cache?': 'There is no cache.',
    });
    expect(summary).toMatchObject({ completed: 2 });
    expect(progress).toContain('What is the pool size?: completed');
    expect(() => readFileSync(path.join(dir, '.murmur', 'sessions'))).toThrow();
  });

  it('a custom tool reaches the workers, with its arguments checked by its schema', async () => {
    write('src/refund.ts', 'export const refund = (n: number) => Math.floor(n);\n');
    useScript({
      agents: [
        {
          match: { role: 'worker', prompt: 'PAY-12' },
          turns: [
            { toolCalls: [{ name: 'lookup_ticket', arguments: { id: 'pay 12' } }] },
            { toolCalls: [{ name: 'lookup_ticket', arguments: { id: 'PAY-12' } }] },
            {
              toolCalls: [
                {
                  name: 'edit',
                  arguments: {
                    path: 'src/refund.ts',
                    old_string: 'Math.floor(n)',
                    new_string: 'Math.round(n * 100) / 100',
                  },
                },
              ],
            },
            { toolCalls: [{ name: 'close_ticket', arguments: { id: 'PAY-12' } }] },
            { text: 'PAY-12 fixed: refunds round to the cent.' },
          ],
        },
      ],
    });
    const report = await fixTickets(dir, ['PAY-12']);
    expect(report.status).toBe('completed');
    expect(report.items[0]!.text).toBe('PAY-12 fixed: refunds round to the cent.');
    expect(readFileSync(path.join(dir, 'src/refund.ts'), 'utf8')).toContain('Math.round(n * 100) / 100');
    // The item's transcript is packed with the session's other items': read through the session's reader.
    const agentId = report.items[0]!.agentId!;
    const sessionDir = path.join(dir, '.murmur', 'sessions', report.sessionId!);
    const transcript = JSON.stringify(readSessionTranscripts(sessionDir, [agentId]).get(agentId)!.messages);
    expect(transcript).toContain('Invalid arguments for tool \\"lookup_ticket\\"');
    expect(transcript).toContain('Refunds round to the cent, not down.');
    // lookup_ticket is read-only (auto mode ran it without asking); close_ticket asked first, and ran once allowed.
    expect(closed).toEqual(['PAY-12']);
    expect(vi.mocked(console.log).mock.calls.map((call) => String(call[0]))).toEqual([
      `close_ticket: close_ticket {"id":"PAY-12"} (close_ticket's definition asks for approval) -> yes`,
    ]);
  });
});
