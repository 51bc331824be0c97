// Typed outputs on the command line: `--output-schema FILE.json` (a plain JSON Schema, checked with the ajv of the
// MCP tools; a missing or invalid file is exit 2 naming it) and `--output-jsonl FILE`, one line per finished item
// as it finishes — `{index, item, outcome, output?, reason?, agentId, verdict?}` — that a resume goes on appending to.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringFlag, UsageError, type ParsedArgs } from './args.js';
import { outputSchemaProblem, type OutputSpec } from '../host/output.js';
import type { ItemListener } from '../host/lifecycle.js';

/** The output of `--output-schema`, or undefined without the flag. */
export async function outputSpecFrom(command: string, args: ParsedArgs): Promise<OutputSpec | undefined> {
  const file = stringFlag(args, 'output-schema');
  if (file === undefined) return undefined;
  const bad = (why: string) => new UsageError(`murmur ${command}: --output-schema ${JSON.stringify(file)} ${why}.`);
  let text: string;
  try {
    text = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw bad(`cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw bad(`is not valid JSON: ${(error as Error).message}`);
  }
  const problem = await outputSchemaProblem(schema);
  if (problem) throw bad(`is not a valid JSON Schema: ${problem}`);
  return { schema: schema as Record<string, unknown> };
}

/** The `--output-jsonl` file's path (absolute), or undefined without the flag. */
export function outputJsonlPath(args: ParsedArgs): string | undefined {
  const file = stringFlag(args, 'output-jsonl');
  return file === undefined ? undefined : resolve(file);
}

/**
 * The indexes of the items a file already has a line for. A last line cut short by a crash is dropped from the
 * file (its item is written again), so the next line starts on a line of its own.
 */
/** A line's key: its item's index and attempt, so a retried item (`--retry`) gets a line per attempt. */
const lineKey = (index: number, attempt: number | undefined) => `${index}:${attempt ?? 1}`;

function writtenIndexes(path: string): Set<string> {
  const written = new Set<string>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return written;
  }
  const whole = text.endsWith('\n') || text === '' ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  if (whole !== text) writeFileSync(path, whole);
  for (const line of whole.split('\n')) {
    try {
      const { index, attempt } = JSON.parse(line) as { index?: unknown; attempt?: unknown };
      if (typeof index === 'number') written.add(lineKey(index, typeof attempt === 'number' ? attempt : undefined));
    } catch {
      // Not a line of ours (an empty last one): nothing to skip.
    }
  }
  return written;
}

/**
 * Opens the lines file: a new swarm starts it empty; a resume (`append`) keeps it and writes only the items that
 * have no line yet. A file that cannot be written is exit 2 naming it.
 */
export function openOutputJsonl(command: string, path: string, append: boolean): ItemListener {
  let written = new Set<string>();
  try {
    if (append) written = writtenIndexes(path);
    if (append) appendFileSync(path, '');
    else writeFileSync(path, '');
  } catch (error) {
    throw new UsageError(
      `murmur ${command}: cannot write --output-jsonl ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    );
  }
  let failed = false;
  return (result) => {
    const key = lineKey(result.index, result.attempt);
    if (written.has(key) || failed) return;
    const line: Record<string, unknown> = { index: result.index, item: result.item, outcome: result.outcome };
    if (result.output !== undefined) line.output = result.output;
    if (result.reason !== undefined) line.reason = result.reason;
    line.agentId = result.agentId;
    if (result.verdict !== undefined) line.verdict = result.verdict;
    if (result.attempt !== undefined) line.attempt = result.attempt;
    try {
      appendFileSync(path, `${JSON.stringify(line)}\n`);
      written.add(key);
    } catch (error) {
      failed = true;
      process.stderr.write(
        `murmur: error: --output-jsonl ${path} could not be written (${(error as NodeJS.ErrnoException).code ?? String(error)}); no more lines go to it, the report has every item\n`,
      );
    }
  };
}
