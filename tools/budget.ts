// The result budget: what keeps one tool result from flooding the conversation. Three gates:
//  1. each tool's own limits (read: 1000 lines or 100 KB; grep: head_limit; glob: 100 files…);
//  2. a per-result cap on any tool's text (head and tail kept, the cut said);
//  3. a spill gate: text above the spill limit is saved to tool-outputs/<callId>.txt and replaced by a
//     receipt telling the model how to recover the facts from that file with grep and read. Only for agents
//     that have read; media stays in the result; if the file cannot be written, a 2 KiB head-and-tail preview.
// The spill gate sees the full text, so where it applies the cap does not cut first; the cap is for agents
// without read (or without a session folder), and for what stays below the spill limit.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AfterCallStage } from './call-stage.js';
import { resultText, type RuntimeTool, type ToolContent, type ToolResult } from './contract.js';
import { READ_RESULT_MAX_CHARS } from './fs/read.js';

/**
 * Default spill limit, in characters. Above READ_RESULT_MAX_CHARS (~101 KiB), so a read result within read's
 * own limits is never spilled: an agent reading a spilled file in ranges would otherwise loop.
 */
export const DEFAULT_SPILL_CHARS = 128 * 1024;
/** Default per-result cap, in characters (wider than the spill limit: it only binds where nothing spills). */
export const DEFAULT_MAX_RESULT_CHARS = 256 * 1024;
/** Preview kept when a spill file cannot be written. */
export const SPILL_FAILURE_PREVIEW_CHARS = 2 * 1024;
const RECEIPT_PREVIEW_LINES = 20;
const RECEIPT_PREVIEW_CHARS = 1000;

export interface ResultBudgetOptions {
  /** Gate 3 only applies when the agent has the read tool (it needs read and grep to use the receipt). */
  agentHasRead: boolean;
  /** The session's tool-outputs folder; without one nothing is spilled. */
  toolOutputsDir?: string;
  /** Gate 2: characters of text kept per result (head and tail). */
  maxResultChars?: number;
  /** Gate 3: results with more text than this are spilled. */
  spillChars?: number;
}

/** The budget of one agent (a call needs only its id and name here). */
export type ResultBudget = (
  call: { id: string; name: string },
  tool: RuntimeTool | undefined,
  result: ToolResult,
) => Promise<ToolResult>;

function withText(result: ToolResult, text: string): ToolResult {
  const content: ToolContent[] = [];
  let placed = false;
  for (const block of result.content) {
    if (block.type === 'text') {
      if (!placed) content.push({ type: 'text', text });
      placed = true;
    } else content.push(block);
  }
  if (!placed) content.unshift({ type: 'text', text });
  const next: ToolResult = { ...result, content };
  return next;
}

/** Head and tail of `text` within `limit` characters, saying what was cut. */
export function headAndTail(text: string, limit: number, why: string): string {
  if (text.length <= limit) return text;
  const keep = Math.max(0, limit);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const cut = text.length - keep;
  return `${text.slice(0, head)}\n\n[… ${cut} of ${text.length} characters cut from the middle (${why}) …]\n\n${tail > 0 ? text.slice(-tail) : ''}`;
}

function safeFileName(callId: string): string {
  const cleaned = callId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return `${cleaned || 'call'}.txt`;
}

function sizeText(chars: number, bytes: number): string {
  const kb = bytes / 1024;
  return `${chars} characters, ${kb >= 1024 ? `${(kb / 1024).toFixed(1)} MB` : `${kb.toFixed(1)} KB`}`;
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

function preview(text: string): string {
  const lines = text
    .slice(0, RECEIPT_PREVIEW_CHARS * 2)
    .split('\n')
    .slice(0, RECEIPT_PREVIEW_LINES)
    .join('\n');
  return lines.length > RECEIPT_PREVIEW_CHARS ? `${lines.slice(0, RECEIPT_PREVIEW_CHARS)}…` : lines;
}

export function spillReceipt(file: string, text: string): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  return [
    `[This result was too large to show (${sizeText(text.length, bytes)}, ${countLines(text)} lines). It was saved in full to ${file}`,
    '',
    'Recover the facts you need from that file now, before answering or searching elsewhere:',
    `1. Search it first with grep (path "${file}", output_mode "content", a bounded head_limit) to find the relevant parts.`,
    '2. Then read the relevant ranges with read (path, line_offset, n_lines).',
    'Do not read the whole file in one call. When you need all of its content, keep reading it in bounded ranges until you have read it all.',
    '',
    'It begins:',
    preview(text),
    ']',
  ].join('\n');
}

export function createResultBudget(options: ResultBudgetOptions): ResultBudget {
  const spillChars = options.spillChars ?? DEFAULT_SPILL_CHARS;
  const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  return async (call, _tool, result) => {
    const text = resultText(result);
    // A read within its own limits is never spilled or cut, whatever the configuration says.
    const floor = call.name === 'read' ? READ_RESULT_MAX_CHARS : 0;
    const spillLimit = Math.max(spillChars, floor);
    const cap = Math.max(maxResultChars, floor);
    if (options.agentHasRead && options.toolOutputsDir && text.length > spillLimit) {
      const file = path.join(options.toolOutputsDir, safeFileName(call.id));
      try {
        await mkdir(options.toolOutputsDir, { recursive: true });
        await writeFile(file, text, 'utf8');
        return withText(result, spillReceipt(file, text));
      } catch (error) {
        const why = `the result was too large and could not be saved to ${file}: ${(error as Error).message}`;
        return withText(result, headAndTail(text, SPILL_FAILURE_PREVIEW_CHARS, why));
      }
    }
    if (text.length > cap) return withText(result, headAndTail(text, cap, `per-result limit of ${cap} characters`));
    return result;
  };
}

/**
 * The budget as an after-call stage of one agent. Call ids are unique within one conversation only (the
 * scripted model repeats them across agents), and spilled files are named after them: the agent id is put
 * in front so agents never overwrite each other's.
 */
export function resultBudgetStage(budget: ResultBudget, agentId: string): AfterCallStage {
  return {
    name: 'result budget',
    run: (call, tool, result) => budget({ id: `${agentId}-${call.id}`, name: call.name }, tool, result),
  };
}
