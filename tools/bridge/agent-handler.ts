// One agent's side of murmur-tools: lists the tools it may reach from its shell, shows one, and calls one
// through the agent's own tool-call pipeline (the engine hands that in as `call`), mapping the outcome to the
// command's output and exit code. Media in a result is written to files whose paths are printed.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RuntimeTool, ToolResult } from '../contract.js';
import {
  exampleArguments,
  matchesKeyword,
  oneLine,
  parseCommand,
  shellQuote,
  USAGE,
  type BridgeCommand,
} from './commands.js';
import { EXIT, type BridgeAnswer, type BridgeHandler } from './protocol.js';

/** The tools an agent may call from its shell, and why a known tool it may not call is refused. */
export interface BridgeCatalog {
  offered: readonly RuntimeTool[];
  /** For a tool that exists but that this agent may not use: the reason (role caps, definition, MCP filter). */
  refusal(name: string): string | undefined;
}

/**
 * How a call went through the pipeline: `invalid` arguments (exit 2), `denied` by a permission rule, a mode or
 * a person (exit 3), or it `ran` (exit 0, or 1 when the result is an error). The result has passed the
 * after-call stages (the result budget).
 */
export type BridgeCallOutcome =
  | { kind: 'invalid'; message: string }
  | { kind: 'denied'; message: string }
  | { kind: 'ran'; result: ToolResult; callId: string };

export interface BridgeAgent {
  catalog(): Promise<BridgeCatalog>;
  call(tool: RuntimeTool, rawArguments: string, signal: AbortSignal): Promise<BridgeCallOutcome>;
  /** Where images and other binary results are written (the session's tool-outputs folder). */
  outputsDir: string;
  agentId: string;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

function line(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

function usage(message: string): BridgeAnswer {
  return { exit: EXIT.usage, stderr: line(message) };
}

function unknownTool(name: string, offered: readonly RuntimeTool[]): BridgeAnswer {
  // Words of the tool part of the name (after the last `__`), so a server name alone suggests nothing.
  const words = name
    .toLowerCase()
    .split('__')
    .at(-1)!
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2);
  const near = offered
    .filter((t) => words.some((w) => t.def.name.toLowerCase().includes(w)))
    .slice(0, 5)
    .map((t) => t.def.name);
  const hint = near.length > 0 ? ` Close names: ${near.join(', ')}.` : '';
  return usage(
    `murmur-tools: no tool is named ${JSON.stringify(name)}.${hint} List them with: murmur-tools tools --keyword WORD`,
  );
}

async function resolveTool(
  agent: BridgeAgent,
  name: string,
): Promise<{ tool: RuntimeTool } | { answer: BridgeAnswer }> {
  const catalog = await agent.catalog();
  const tool = catalog.offered.find((t) => t.def.name === name);
  if (tool) return { tool };
  const refusal = catalog.refusal(name);
  if (refusal !== undefined)
    return { answer: { exit: EXIT.refused, stderr: line(`murmur-tools: refused: ${refusal}`) } };
  return { answer: unknownTool(name, catalog.offered) };
}

async function listTools(
  agent: BridgeAgent,
  command: Extract<BridgeCommand, { kind: 'tools' }>,
): Promise<BridgeAnswer> {
  const { offered } = await agent.catalog();
  const rows = offered
    .map((t) => ({ name: t.def.name, description: t.def.description }))
    .filter((t) => command.keyword === undefined || matchesKeyword(t, command.keyword));
  if (command.json)
    return {
      exit: EXIT.ok,
      stdout: `${JSON.stringify(rows.map((r) => ({ name: r.name, description: oneLine(r.description, 1000) })))}\n`,
    };
  const answer: BridgeAnswer = {
    exit: EXIT.ok,
    stdout: rows.map((r) => `${r.name}  ${oneLine(r.description)}\n`).join(''),
  };
  if (rows.length === 0) {
    answer.stderr =
      offered.length === 0
        ? 'murmur-tools: this agent has no tools to reach from its shell.\n'
        : `murmur-tools: no tool matches ${JSON.stringify(command.keyword)}; try a shorter keyword.\n`;
  }
  return answer;
}

async function showTool(agent: BridgeAgent, command: Extract<BridgeCommand, { kind: 'tool' }>): Promise<BridgeAnswer> {
  const found = await resolveTool(agent, command.name);
  if ('answer' in found) return found.answer;
  const { def } = found.tool;
  if (command.json)
    return {
      exit: EXIT.ok,
      stdout: `${JSON.stringify({ name: def.name, description: def.description, parameters: def.parameters })}\n`,
    };
  const example = `murmur-tools call ${def.name} --args ${shellQuote(JSON.stringify(exampleArguments(def.parameters)))}`;
  const text = [
    def.name,
    '',
    def.description.trim(),
    '',
    'Parameters (JSON Schema):',
    JSON.stringify(def.parameters, null, 2),
    '',
    'Example:',
    `  ${example}`,
    '',
  ].join('\n');
  return { exit: EXIT.ok, stdout: text };
}

/** The result as command output: its text, and a line naming the file each media block was written to. */
async function resultOutput(agent: BridgeAgent, callId: string, result: ToolResult): Promise<string> {
  const parts: string[] = [];
  let media = 0;
  for (const block of result.content) {
    if (block.type === 'text') {
      parts.push(block.text);
      continue;
    }
    const bytes = Buffer.from(block.data, 'base64');
    const extension = EXTENSIONS[block.mimeType] ?? 'bin';
    const file = path.join(
      agent.outputsDir,
      `${agent.agentId}-${callId}-${++media}.${extension}`.replace(/[^A-Za-z0-9._-]/g, '_'),
    );
    await mkdir(agent.outputsDir, { recursive: true });
    await writeFile(file, bytes);
    parts.push(`[${block.type} (${block.mimeType}, ${bytes.length} bytes) saved to ${file}]`);
  }
  return parts.join('\n');
}

async function callTool(
  agent: BridgeAgent,
  command: Extract<BridgeCommand, { kind: 'call' }>,
  signal: AbortSignal,
): Promise<BridgeAnswer> {
  const found = await resolveTool(agent, command.name);
  if ('answer' in found) return found.answer;
  const outcome = await agent.call(found.tool, command.args, signal);
  if (outcome.kind === 'invalid') return usage(`murmur-tools: ${outcome.message}`);
  if (outcome.kind === 'denied')
    return { exit: EXIT.refused, stderr: line(`murmur-tools: refused: ${outcome.message}`) };
  const text = await resultOutput(agent, outcome.callId, outcome.result);
  return outcome.result.isError ? { exit: EXIT.toolError, stderr: line(text) } : { exit: EXIT.ok, stdout: line(text) };
}

export function bridgeHandler(agent: BridgeAgent): BridgeHandler {
  return async (argv, signal) => {
    const parsed = parseCommand(argv);
    if (!parsed.ok) return usage(parsed.message);
    const { command } = parsed;
    switch (command.kind) {
      case 'help':
        return { exit: EXIT.ok, stdout: `${USAGE}\n` };
      case 'tools':
        return listTools(agent, command);
      case 'tool':
        return showTool(agent, command);
      case 'call':
        return callTool(agent, command, signal);
    }
  };
}

/** A call id for a shell call: unique across the agent's life (resumes included), as spill files are named after it. */
export function shellCallId(): string {
  return `shell-${randomBytes(5).toString('hex')}`;
}
