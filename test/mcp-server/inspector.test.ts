// `murmur mcp serve` driven by an outside client: @modelcontextprotocol/inspector-cli (a dev dependency).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, removeWorkspaces, makeWorkspace, ROOT, serveArgs, type Workspace } from './helpers.js';

const INSPECTOR = path.join(ROOT, 'node_modules', '.bin', 'mcp-inspector-cli');

/**
 * Runs the inspector in CLI mode against the server. Its options come before `--` and the server command after.
 * `--tool-arg` takes several values, so it goes first, where the next option ends it. The inspector looks for its
 * own package.json at `../package.json` from the current folder, so it runs from a folder below the root.
 */
function inspect(ws: Workspace, options: readonly string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(
      INSPECTOR,
      ['--cli', ...options, '--', process.execPath, ...serveArgs(ws)],
      { cwd: path.join(ROOT, 'node_modules'), timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`inspector failed: ${error.message}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`inspector printed no JSON: ${stdout}\n${stderr}`));
        }
      },
    );
  });
}

describe('murmur mcp serve with the MCP inspector', () => {
  afterAll(removeWorkspaces);

  it('lists the tools and calls run_agent and run_swarm', async () => {
    assertBuilt();
    const ws = await makeWorkspace();
    const [listed, agent, swarm] = await Promise.all([
      inspect(ws, ['--method', 'tools/list']),
      inspect(ws, ['--tool-arg', 'task=read notes.txt', '--method', 'tools/call', '--tool-name', 'run_agent']),
      inspect(ws, [
        '--tool-arg',
        'template=Summarise {{item}}',
        'items=["b.txt","a.txt"]',
        'max_concurrency=1',
        '--method',
        'tools/call',
        '--tool-name',
        'run_swarm',
      ]),
    ]);
    expect((listed as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual([
      'run_agent',
      'run_swarm',
    ]);

    expect(agent).toMatchObject({
      content: [{ type: 'text', text: 'Read notes.txt.' }, { type: 'text' }],
      structuredContent: { status: 'completed' },
    });
    expect((agent as { isError?: boolean }).isError).toBeFalsy();

    const report = (swarm as { content: { text: string }[] }).content[0]!.text;
    expect(report).toContain('<summary>completed: 2</summary>');
    expect(report.indexOf('item="b.txt"')).toBeLessThan(report.indexOf('item="a.txt"'));
    expect(swarm).toMatchObject({ structuredContent: { status: 'completed', summary: { completed: 2 } } });
  });
});
