// read: numbered lines of a text file, a bounded window per call (1000 lines or 100 KB).
import { Type } from '@sinclair/typebox';
import {
  defineRuntimeTool,
  errorResult,
  textResult,
  type ToolContext,
  type ToolResult,
  type ToolTraits,
} from '../contract.js';
import { isRecord } from '../util/is-record.js';
import { classifyHead, mediaTypeFromExtension, SNIFF_BYTES } from './file-kind.js';
import { readLineWindow, type LineWindow } from './line-reader.js';
import { numberArguments, renameArgument } from './tool-args.js';
import { openForReading } from './open-for-reading.js';

export const READ_MAX_LINES = 1000;
export const READ_MAX_BYTES = 100 * 1024;
/** Bytes counted per line for its number prefix, so the whole numbered text stays within READ_MAX_BYTES. */
const LINE_PREFIX_BYTES = 12;
/**
 * Upper bound of the text of any read result, in characters: the numbered lines (at most READ_MAX_BYTES
 * bytes, so at most as many characters) plus the closing note. The result budget keeps its spill limit
 * above this, so a read within its own limits is never spilled (an agent reading a spilled file in ranges
 * would otherwise loop).
 */
export const READ_RESULT_MAX_CHARS = READ_MAX_BYTES + 1024;

export const readParameters = Type.Object({
  path: Type.String({ description: 'File to read: relative to the workspace root, or absolute inside it.' }),
  line_offset: Type.Optional(
    Type.Integer({
      description:
        'First line to show, 1-based (default 1). Negative counts from the end: -50 shows the last 50 lines.',
    }),
  ),
  n_lines: Type.Optional(
    Type.Integer({ minimum: 1, description: `How many lines to show (default and maximum ${READ_MAX_LINES}).` }),
  ),
});

function prepareReadArguments(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const args = { ...raw };
  renameArgument(args, 'file_path', 'path');
  renameArgument(args, 'offset', 'line_offset');
  renameArgument(args, 'limit', 'n_lines');
  numberArguments(args, ['line_offset', 'n_lines']);
  return args;
}

function formatLines(window: LineWindow): string {
  let out = '';
  let number = window.firstLine;
  for (const line of window.lines) {
    if (out) out += '\n';
    out += `${String(number).padStart(6)}\t${line}`;
    number++;
  }
  return out;
}

function closingNotes(window: LineWindow, askedLines: number | undefined): string[] {
  const notes: string[] = [];
  if (askedLines !== undefined && askedLines > READ_MAX_LINES) {
    notes.push(
      `n_lines ${askedLines} is above the limit of ${READ_MAX_LINES} lines per call; showing at most ${READ_MAX_LINES}.`,
    );
  }
  const last = window.firstLine + window.lines.length - 1;
  if (window.fromEnd) {
    notes.push(
      'Line numbers count back from the end of the file (-1 is the last line): the file is too large to count its lines cheaply.',
    );
  }
  const next = last + 1;
  const canContinue = window.more && (!window.fromEnd || next < 0);
  if (window.longLineCut) {
    notes.push(
      `Line ${window.firstLine} is longer than ${READ_MAX_BYTES / 1024} KB and is shown cut; read cannot show the rest of it ` +
        '(use grep, or bash with cut -c or head -c, for parts of it).' +
        (canContinue ? ` Continue with line_offset=${next}.` : ''),
    );
  } else if (window.cutByBytes && canContinue) {
    notes.push(
      `Showing lines ${window.firstLine} to ${last}: the ${READ_MAX_BYTES / 1024} KB limit per call was reached. Continue with line_offset=${next}.`,
    );
  } else if (canContinue) {
    notes.push(`Showing lines ${window.firstLine} to ${last}; more lines follow. Continue with line_offset=${next}.`);
  }
  return notes;
}

export async function executeRead(
  ctx: ToolContext,
  input: { path: string; line_offset?: number; n_lines?: number },
): Promise<ToolResult> {
  const opened = await openForReading(ctx, input.path);
  if (!opened.ok) return errorResult(opened.error);
  const { file, handle } = opened;
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return errorResult(`${file.display} is a folder, not a file. Use glob to list its files.`);
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, stats.size));
    if (head.length > 0) await handle.read(head, 0, head.length, 0);
    const kind = classifyHead(file.real, head);
    const media = kind.kind === 'image' || kind.kind === 'video' ? kind : mediaTypeFromExtension(file.real);
    if (media) {
      return errorResult(
        `${file.display} is ${media.kind === 'image' ? 'an image' : 'a video'} (${media.mimeType}); use read_media_file to view it.`,
      );
    }
    if (kind.kind === 'binary')
      return errorResult(`${file.display} is a binary file (${stats.size} bytes); read shows text files only.`);
    const lineOffset = input.line_offset === undefined || input.line_offset === 0 ? 1 : input.line_offset;
    const maxLines = Math.min(input.n_lines ?? READ_MAX_LINES, READ_MAX_LINES);
    const window = await readLineWindow(handle, stats.size, lineOffset, {
      maxLines,
      maxBytes: READ_MAX_BYTES,
      lineOverhead: LINE_PREFIX_BYTES,
    });
    ctx.reads?.recordRead(file.real, { mtimeMs: stats.mtimeMs, size: stats.size });
    if (window.pastEndTotal !== undefined) {
      return errorResult(
        `line_offset ${lineOffset} is past the end of ${file.display}, which has ${window.pastEndTotal} lines.`,
      );
    }
    if (window.lines.length === 0) return textResult(`${file.display} is empty.`);
    const notes = closingNotes(window, input.n_lines);
    const body = formatLines(window);
    return textResult(notes.length > 0 ? `${body}\n\n[${notes.join(' ')}]` : body, {
      path: file.display,
      firstLine: window.firstLine,
      lines: window.lines.length,
    });
  } finally {
    await handle.close();
  }
}

/** read's traits: it only reads; a rule's parentheses match the path it reads (a `read(…)` deny rule also covers the other readers). */
export const READ_TRAITS = { readOnly: true, ruleArgument: 'path' } as const satisfies ToolTraits;

export const readTool = defineRuntimeTool({
  def: {
    ...READ_TRAITS,
    name: 'read',
    description:
      'Read a text file from the workspace. Lines come numbered (number, tab, text). At most ' +
      `${READ_MAX_LINES} lines or ${READ_MAX_BYTES / 1024} KB per call; when cut, the result says which line_offset to continue with. ` +
      'Use line_offset and n_lines to read a range; a negative line_offset reads the end (-50 = the last 50 lines). ' +
      'Images and videos: use read_media_file.',
    parameters: readParameters,
    prepareArguments: prepareReadArguments,
    executionMode: 'parallel',
  },
  execute: (ctx, input) => executeRead(ctx, input),
});
