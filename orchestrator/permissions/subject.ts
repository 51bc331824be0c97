// What a tool call is, as the permission rules see it: the tool (looked through mcp_invoke to the tool it
// calls), whether it is an MCP tool and whether it is marked read-only, and its main argument — the command
// for bash, the path (workspace-relative, normalised) for the file tools.
import path from 'node:path';
import type { RuntimeTool } from '../../tools/contract.js';
import { isMcpTool, MCP_PREFIX } from '../../tools/mcp/names.js';
import { ARGUMENT_KINDS } from './rules.js';
import { isInsideFolder } from './inside.js';

export const MCP_INVOKE = 'mcp_invoke';

export interface CallPath {
  /** As the model wrote it. */
  input: string;
  /** Absolute, lexically normalised (symlinks not followed). */
  absolute: string;
  /** Relative to the workspace root with forward slashes; undefined when the path lies outside it. */
  relative?: string;
  /** The same path with symlinks followed, when that differs: deny and ask rules look at both. */
  real?: CallPath;
}

export interface CallSubject {
  /** The tool the call runs, lower-case (for mcp_invoke: the tool it invokes). */
  tool: string;
  /** Set when the call goes through another tool (mcp_invoke). */
  via?: string;
  mcp: boolean;
  /** An MCP tool whose server marks it read-only (readOnlyHint, which also makes it parallel). */
  readOnly: boolean;
  command?: string;
  path?: CallPath;
  /** The arguments of the tool that runs (for the approval prompt). */
  args: unknown;
  /** The user's own tool (the library's `tools`): its `readOnly` and `needsApproval` marks count. */
  ownTool?: boolean;
  /** That tool's needsApproval for these arguments: `required` asks in every mode, `none` allows. */
  approval?: 'required' | 'none';
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/** A path argument against the workspace root: absolute form, and the relative one when inside. */
export function callPath(input: string, workspaceRoot: string): CallPath {
  const absolute = path.resolve(workspaceRoot, input);
  const out: CallPath = { input, absolute };
  if (isInsideFolder(workspaceRoot, absolute)) out.relative = toPosix(path.relative(workspaceRoot, absolute)) || '.';
  return out;
}

/** A host's tool: its own read-only mark, and whether it needs approval for these arguments. */
function markHostTool(subject: CallSubject, tool: RuntimeTool, args: unknown): void {
  subject.ownTool = true;
  if (tool.def.readOnly === true) subject.readOnly = true;
  const rule = tool.def.needsApproval;
  if (rule === undefined) return;
  let required: boolean;
  try {
    required = typeof rule === 'function' ? rule(args) === true : rule;
  } catch {
    // A test that throws cannot say the call is harmless: a person decides.
    required = true;
  }
  subject.approval = required ? 'required' : 'none';
}

export function describeSubject(
  name: string,
  tool: RuntimeTool | undefined,
  args: unknown,
  workspaceRoot: string,
): CallSubject {
  const lower = name.toLowerCase();
  if (lower === MCP_INVOKE) {
    const invoke = record(args);
    const target = typeof invoke?.name === 'string' ? invoke.name.trim().toLowerCase() : '';
    // The invoked tool's read-only mark is not visible here, so it is treated as a tool that changes things.
    return {
      tool: target || MCP_INVOKE,
      via: MCP_INVOKE,
      mcp: target.startsWith(MCP_PREFIX),
      readOnly: false,
      args: invoke?.arguments ?? {},
    };
  }
  const mcp = (tool !== undefined && isMcpTool(tool)) || lower.startsWith(MCP_PREFIX);
  const subject: CallSubject = { tool: lower, mcp, readOnly: mcp && tool?.def.executionMode === 'parallel', args };
  if (tool?.source === 'configured') markHostTool(subject, tool, args);
  const fields = record(args);
  const kind = ARGUMENT_KINDS[lower];
  if (kind === 'command' && typeof fields?.command === 'string') subject.command = fields.command;
  if (kind === 'path') {
    // grep and glob search the workspace when they name no path.
    const target =
      typeof fields?.path === 'string' ? fields.path : lower === 'grep' || lower === 'glob' ? '.' : undefined;
    if (target !== undefined) subject.path = callPath(target, workspaceRoot);
  }
  return subject;
}
