// The permission policy: for one call, allow, ask or deny — from the rules first (deny wins), then from the
// mode. A write or edit of a protected path (tools/fs/protected-paths.ts) asks in every mode unless a rule names the
// path (protected.ts). Pure: the call is described beforehand (subject.ts) and nothing here waits or prints.
import { builtinToolsWhere } from '../../tools/builtin-traits.js';
import { allowedBy, firstHit } from './match.js';
import { FILE_CHANGE_TOOLS, namingRules, protectedReason, protectedTarget, type ProtectedTarget } from './protected.js';
import type { PermissionRule } from './rules.js';
import type { CallSubject } from './subject.js';

export type PermissionMode = 'manual' | 'auto' | 'yolo';
export const PERMISSION_MODES: readonly PermissionMode[] = ['manual', 'auto', 'yolo'];

/** Built-in tools that only read or look things up (their `readOnly` trait): never asked for. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = builtinToolsWhere((t) => t.readOnly === true);

/**
 * Built-in tools that change nothing by themselves (their `selfChecked` trait): asking the user a question, plan
 * mode (its approval is asked by exit_plan_mode itself), starting a subagent (whose own calls are checked), a timer,
 * loading a skill's text, creating a scheduled task (it always asks for approval itself, whatever the mode and
 * rules), a typed output's final answer.
 */
export const SELF_CHECKED_TOOLS: ReadonlySet<string> = builtinToolsWhere((t) => t.selfChecked === true);

/** Built-in tools that start a swarm (their `startsSwarm` trait): without a rule, only swarm mode lets them run unasked. */
export const SWARM_TOOLS: ReadonlySet<string> = builtinToolsWhere((t) => t.startsSwarm === true);

export interface PolicyRules {
  allow: readonly PermissionRule[];
  ask: readonly PermissionRule[];
  deny: readonly PermissionRule[];
  /** Rules the user added with "allow always" during this session. */
  session: readonly PermissionRule[];
}

export interface PolicyInput {
  mode: PermissionMode;
  swarmMode: boolean;
  rules: PolicyRules;
  /** Auto mode allows bash: its commands run in the sandbox and `[sandbox] autoAllowBash` is on. */
  sandboxedBash?: boolean;
  /** For auto mode: whether the call's path lies in the workspace (symlinks followed). */
  insideWorkspace?: boolean;
  /**
   * The extra roots (`[workspace] extraRoots`, absolute, as written and with symlinks followed): a protected name at
   * the top of one (its murmur.toml, .vscode…) is protected like the workspace's own.
   */
  extraRoots?: readonly string[];
}

export type Decision =
  | { kind: 'allow'; why: string; rules?: readonly PermissionRule[] }
  | {
      kind: 'ask';
      why: string;
      rule?: PermissionRule;
      /** Set when the call writes a protected path: only a person or a rule naming the path may allow it. */
      protected?: ProtectedTarget;
    }
  | { kind: 'deny'; why: string; rule: PermissionRule };

function ruleNames(rules: readonly PermissionRule[]): string {
  return rules.map((r) => `"${r.text}" (${r.source})`).join(', ');
}

/** Why a call of this kind needs the user, in the mode's words. */
function askReason(subject: CallSubject, input: PolicyInput): string {
  const { tool } = subject;
  if (SWARM_TOOLS.has(tool)) return `${tool} starts many agents at once and swarm mode is off`;
  if (tool === 'bash') return 'bash runs commands';
  if (FILE_CHANGE_TOOLS.has(tool)) {
    return input.mode === 'auto' ? `${tool} touches a file outside the workspace` : `${tool} changes files`;
  }
  if (tool === 'task_stop') return 'task_stop stops a running task';
  if (subject.mcp) return `${tool} is an MCP tool its server does not mark read-only`;
  return `${tool} is not known to be read-only`;
}

/**
 * The protected path a write or edit would change (tools/fs/protected-paths.ts), or undefined. Such a call asks a
 * person in every mode, yolo included; only a deny rule (refuses), or an allow or session rule that names the path
 * itself (see namesProtectedPath), settles it without a person.
 */
export function protectedWrite(
  subject: CallSubject,
  input: Pick<PolicyInput, 'extraRoots'>,
): ProtectedTarget | undefined {
  return FILE_CHANGE_TOOLS.has(subject.tool) ? protectedTarget(subject, input.extraRoots) : undefined;
}

export function decide(subject: CallSubject, input: PolicyInput): Decision {
  const { rules, mode } = input;
  const denied = firstHit(rules.deny, subject);
  if (denied) return { kind: 'deny', why: `the rule "${denied.text}" in ${denied.source} denies it`, rule: denied };

  // A protected path: generic allow rules do not count, only those that name the path.
  const guarded = protectedWrite(subject, input);
  const allowing = (list: readonly PermissionRule[]) =>
    guarded ? namingRules(list, subject, guarded) : allowedBy(list, subject);
  // Every question about a protected path carries it: headless = "allow" and generic rules must not settle it.
  const ask = (why: string, rule?: PermissionRule): Decision => ({
    kind: 'ask',
    why,
    ...(rule ? { rule } : {}),
    ...(guarded ? { protected: guarded } : {}),
  });

  const session = allowing(rules.session);
  if (session) return { kind: 'allow', why: `allowed for this session by ${ruleNames(session)}`, rules: session };

  // A host's tool that needs approval asks in every mode; only the session's "allow always" (above) skips it.
  if (subject.approval === 'required') return ask(`${subject.tool}'s definition asks for approval`);

  // yolo asks for nothing (plan approval is not a permission call: exit_plan_mode asks for it itself) — but for a
  // protected path, below.
  if (mode !== 'yolo') {
    const asked = firstHit(rules.ask, subject);
    if (asked) return ask(`the rule "${asked.text}" in ${asked.source} asks for it`, asked);
  }

  const allowed = allowing(rules.allow);
  if (allowed) return { kind: 'allow', why: `allowed by ${ruleNames(allowed)}`, rules: allowed };

  if (guarded) return ask(protectedReason(subject.tool, guarded));

  if (mode === 'yolo') return { kind: 'allow', why: 'yolo mode allows every call' };
  if (SWARM_TOOLS.has(subject.tool)) {
    return input.swarmMode
      ? { kind: 'allow', why: `swarm mode allows ${subject.tool}` }
      : { kind: 'ask', why: askReason(subject, input) };
  }
  // The built-in tables hold for murmur's own tools only: a host's tool named like one (tool_search) gets its own marks.
  const builtin = !subject.mcp && subject.ownTool !== true;
  if (builtin && READ_ONLY_TOOLS.has(subject.tool)) return { kind: 'allow', why: `${subject.tool} only reads` };
  if (subject.mcp && subject.readOnly)
    return { kind: 'allow', why: `${subject.tool} is marked read-only by its server` };
  if (subject.ownTool && subject.readOnly)
    return { kind: 'allow', why: `${subject.tool} is marked read-only by the host` };
  if (subject.approval === 'none') return { kind: 'allow', why: `${subject.tool}'s definition needs no approval` };
  if (builtin && SELF_CHECKED_TOOLS.has(subject.tool) && subject.via === undefined)
    return { kind: 'allow', why: `${subject.tool} changes nothing by itself` };
  if (mode === 'auto' && subject.tool === 'bash' && input.sandboxedBash === true)
    return { kind: 'allow', why: 'auto mode allows bash in the sandbox ([sandbox] autoAllowBash)' };
  // Protected paths asked above, in every mode.
  if (
    mode === 'auto' &&
    FILE_CHANGE_TOOLS.has(subject.tool) &&
    subject.path !== undefined &&
    input.insideWorkspace === true
  )
    return { kind: 'allow', why: 'auto mode allows edits inside the workspace' };
  return { kind: 'ask', why: askReason(subject, input) };
}
