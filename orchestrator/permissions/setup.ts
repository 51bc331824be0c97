// The permission system in one piece: rules and mode, plan-mode vetoes, the approval broker, and the ports it
// implements — the permission gate, the user channel (ask), the approval of create_scheduled_task (approve) and
// plan mode (plan), with the plan-mode tools made over it. The host builds it once and hands its parts to the
// engine (EngineOptions.permission / extraVetoes, interaction.user, registry.extra).
import path from 'node:path';
import type { PlanDecision, PlanModeAdapter, PlanModeState, UserChannel } from '../../tools/adapters-interaction.js';
import { errorResult, type RuntimeTool, type ToolResult } from '../../tools/contract.js';
import { createPlanModeTools } from '../../tools/interact/plan-mode.js';
import type { ConfirmAnswer } from '../../tools/ports.js';
import { ConfigError, type MurmurConfig } from '../config.js';
import type { EventBus } from '../events.js';
import type { ApprovalAnswer, ApprovalRequest, Asker, Requester, AgentLabel } from './asker.js';
import { describeRequester } from './asker.js';
import { ApprovalBroker, isUnanswered } from './broker.js';
import { callDetail, callSummary } from './call-text.js';
import { isInsideWorkspace, realOrNearest } from './inside.js';
import { allowedBy } from './match.js';
import type { BatchVetoFor, PermissionGate } from '../runtime-ports.js';
import { exitPlanAloneVeto, isPlanFileWrite, PlanModeStore, planModeVeto } from './plan-mode.js';
import { decide, type Decision, type PermissionMode } from './policy.js';
import { namesProtectedPath, namingRules, type ProtectedTarget } from './protected.js';
import { describeRuleProblem, parseRule, parseRuleLists, isRuleProblem, type PermissionRule } from './rules.js';
import { callPath, describeSubject, type CallSubject } from './subject.js';
import { suggestRules, tomlAllowLine } from './suggest.js';

/** What the setup needs to know of an agent to label its requests (the scheduler's AgentRecord fits). */
export interface AgentLookupRecord {
  id: string;
  parentId?: string;
  profile: { name: string };
}

export interface PermissionSetupOptions {
  /** The whole configuration: `[permissions]`, `permissionMode` and `swarm.swarmMode` are read from it. */
  config?: MurmurConfig;
  /** `--permission-mode`; default: config.permissionMode, else manual. */
  mode?: PermissionMode;
  /** `--swarm-mode`; default: config.swarm.swarmMode, else false. */
  swarmMode?: boolean;
  /** Whether agents' bash commands run in the sandbox: `[sandbox] autoAllowBash` then lets auto mode allow them. */
  sandboxed?: boolean;
  workspaceRoot: string;
  /** The one place where the user answers; missing = nobody can (no terminal, --json, MCP server mode). */
  asker?: Asker;
  /** Why nobody can answer, for the messages to the model (used when `asker` is missing). */
  headlessReason?: string;
  /** Finds an agent by id, to label a request with its parent chain (e.g. `(id) => engine.agentTree.get(id)`). */
  agents?: (agentId: string) => AgentLookupRecord | undefined;
  /** Approvals and denials are logged here (`log` events). */
  bus?: EventBus;
}

export interface PermissionSetup {
  mode: PermissionMode;
  swarmMode: boolean;
  /** EngineOptions.permission: vetoes, then rules and mode, then the user. Never throws (see PermissionGate). */
  permission: PermissionGate;
  /** EngineOptions.extraVetoes: exit_plan_mode alone in its message. */
  extraVetoes: BatchVetoFor;
  /** interaction.user, for ask_user_question. */
  userChannel: UserChannel;
  /** interaction.planMode, for enter_plan_mode and exit_plan_mode. */
  planMode: PlanModeAdapter;
  planModeFor(agentId: string): PlanModeState;
  /** registry.extra: enter_plan_mode and exit_plan_mode, made over `planMode`. */
  tools: readonly RuntimeTool[];
  broker: ApprovalBroker;
  /** The rules added by "allow always" answers, as written (saved with the session). */
  sessionRules(): readonly string[];
  /** Puts back the "allow always" rules of a resumed session (a rule that no longer parses is dropped). */
  restoreSessionRules(rules: readonly string[]): void;
  /**
   * An approval exempt from the mode, the rules and `headless = "allow"` (like a plan's): always asks the person
   * through the one asker, and is refused when nobody can answer. Used by create_scheduled_task.
   */
  confirm(request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer>;
}

export interface ConfirmRequest {
  agentId: string;
  role: string;
  callId: string;
  tool: string;
  summary: string;
  card: string;
}

export type { ConfirmAnswer } from '../../tools/ports.js';

export class PermissionRuleError extends ConfigError {}

export const DEFAULT_HEADLESS_REASON = 'no terminal is attached to this run';

const MAX_CHAIN = 64;

export function createPermissionSetup(options: PermissionSetupOptions): PermissionSetup {
  const config = options.config ?? {};
  const mode: PermissionMode = options.mode ?? config.permissionMode ?? 'manual';
  const swarmMode = options.swarmMode ?? config.swarm?.swarmMode ?? false;
  const sandboxedBash = options.sandboxed === true && config.sandbox?.autoAllowBash === true;
  const settings = config.permissions ?? {};
  const parsed = parseRuleLists(settings);
  if (parsed.problems.length > 0) throw new PermissionRuleError(parsed.problems.map(describeRuleProblem).join('\n'));
  const session: PermissionRule[] = [];
  const plans = new PlanModeStore();
  const broker = new ApprovalBroker(options.asker);
  const headlessReason = options.headlessReason ?? DEFAULT_HEADLESS_REASON;
  const headlessAllows = settings.headless === 'allow';
  const approvePlans = settings.approvePlans === true;
  // Extra roots as the engine resolves them (against the workspace), and with symlinks followed: protected names at
  // their top count like the workspace's own.
  const extraRoots = (config.workspace?.extraRoots ?? []).map((p) => path.resolve(options.workspaceRoot, p));
  let realExtraRoots: Promise<string[]> | undefined;
  const allExtraRoots = async (): Promise<string[]> => {
    realExtraRoots ??= Promise.all(extraRoots.map((p) => realOrNearest(p)));
    return [...new Set([...extraRoots, ...(await realExtraRoots)])];
  };

  const log = (agentId: string, level: 'info' | 'warn', message: string) =>
    options.bus?.emit({ type: 'log', level, agentId, message });

  const requesterOf = (agentId: string, role: string): Requester => {
    const chain: AgentLabel[] = [];
    let parentId = options.agents?.(agentId)?.parentId;
    while (parentId !== undefined && chain.length < MAX_CHAIN) {
      const parent = options.agents?.(parentId);
      chain.push({ agentId: parentId, role: parent?.profile.name ?? '?' });
      parentId = parent?.parentId;
    }
    return { agentId, role, chain };
  };

  const decideFor = async (subject: CallSubject, root: string, plan: PlanModeState): Promise<Decision> => {
    const insideWorkspace = subject.path ? await isInsideWorkspace(root, subject.path.absolute) : undefined;
    if (subject.path) {
      // A rule on `secrets/**` also holds for a link that leads there.
      const [realRoot, real] = await Promise.all([realOrNearest(root), realOrNearest(subject.path.absolute)]);
      const realPath = callPath(real, realRoot);
      if (realPath.absolute !== subject.path.absolute || realPath.relative !== subject.path.relative)
        subject.path.real = realPath;
    }
    const input = {
      mode,
      swarmMode,
      sandboxedBash,
      rules: { ...parsed, session },
      ...(insideWorkspace !== undefined ? { insideWorkspace } : {}),
      ...(subject.path && extraRoots.length > 0 ? { extraRoots: await allExtraRoots() } : {}),
    };
    const decision = decide(subject, input);
    // The plan file is the agent's own scratch file in the session folder: writing it needs no approval.
    if (decision.kind === 'ask' && !decision.protected && isPlanFileWrite(subject, plan))
      return { kind: 'allow', why: 'the plan file may always be written in plan mode' };
    return decision;
  };

  const permission: PermissionGate = async (record, call, tool, args, signal): Promise<ToolResult | undefined> => {
    const root = record.workspaceRoot ?? options.workspaceRoot;
    const subject = describeSubject(call.name, tool, args, root);
    const plan = plans.state(record.id);
    const veto = planModeVeto(subject, plan);
    if (veto) return errorResult(veto, { permission: 'veto' });
    const decision = await decideFor(subject, root, plan);
    if (decision.kind === 'allow') return undefined;
    const summary = callSummary(subject);
    if (decision.kind === 'deny') {
      log(record.id, 'warn', `denied ${summary}: ${decision.why}`);
      return errorResult(
        `Not run: ${decision.why}. Deny rules cannot be overridden by allow rules or answers; do not retry this call — ` +
          'do the work another way, or say in your reply what you need and why.',
        { permission: 'deny', rule: decision.rule.text },
      );
    }
    const guarded = decision.protected;
    // For a protected path, "allow always" adds only a rule that names the path itself (none when no rule can).
    const alwaysRules = suggestRules(subject).filter((text) => !guarded || namesPath(text, subject, guarded));
    if (!broker.asker) {
      // headless = "allow" does not cover a protected path: a person must decide, or a rule that names it.
      if (headlessAllows && !guarded) {
        log(record.id, 'info', `allowed without asking (permissions.headless = "allow"): ${summary}`);
        return undefined;
      }
      log(record.id, 'warn', `denied ${summary}: it needs approval and ${headlessReason}`);
      if (guarded)
        return errorResult(protectedHeadlessDenial(subject, decision.why, headlessReason, alwaysRules), {
          permission: 'headless-deny',
          wouldAllow: alwaysRules,
          protectedPath: guarded.shown,
        });
      return errorResult(headlessDenial(subject, decision.why, headlessReason, alwaysRules, mode), {
        permission: 'headless-deny',
        wouldAllow: alwaysRules,
      });
    }
    const requester = requesterOf(record.id, record.profile.name);
    const request: ApprovalRequest = {
      requester,
      callId: call.id,
      tool: subject.tool,
      summary,
      detail: callDetail(subject),
      reason: decision.why,
      alwaysRules,
    };
    log(record.id, 'info', `waiting for approval: ${summary} (${describeRequester(requester)})`);
    // An "allow always" given meanwhile for an identical call settles this one without asking again.
    const settled = (): ApprovalAnswer | undefined =>
      (guarded ? namingRules(session, subject, guarded) : allowedBy(session, subject))
        ? { kind: 'allow_once' }
        : undefined;
    const answered = (answer: ApprovalAnswer) => {
      if (answer.kind !== 'allow_always') return;
      for (const text of alwaysRules) {
        const rule = parseRule(text, 'allow', 'session');
        if (!isRuleProblem(rule) && !session.some((r) => r.text === rule.text)) session.push(rule);
      }
    };
    const answer = await broker.approve(request, signal, { settled, answered });
    if (isUnanswered(answer)) {
      log(record.id, 'warn', `not run: ${summary}: ${answer.reason}`);
      return errorResult(`Not run: ${summary} needed approval, but ${answer.reason}. Do not retry it as is.`, {
        permission: 'unanswered',
      });
    }
    if (answer.kind === 'allow_once') {
      log(record.id, 'info', `allowed: ${summary}`);
      return undefined;
    }
    if (answer.kind === 'allow_always') {
      log(record.id, 'info', `allowed for this session: ${alwaysRules.join(', ')}`);
      return undefined;
    }
    log(record.id, 'warn', `the user denied ${summary}`);
    const feedback = answer.feedback?.trim() ? ` The user said: ${JSON.stringify(answer.feedback.trim())}` : '';
    return errorResult(
      `Not run: the user denied this call (${summary}).${feedback} Do not retry it as is; adjust your approach or ask the user what they want.`,
      { permission: 'user-deny' },
    );
  };

  const userChannel: UserChannel = {
    availability: () => (broker.asker ? { canAsk: true } : { canAsk: false, reason: headlessReason }),
    async ask(request, signal) {
      const reply = await broker.question(request, requesterOf(request.agentId, request.role), signal);
      if (!isUnanswered(reply)) return reply;
      if (signal.aborted) throw new Error(reply.reason);
      return { kind: 'declined', reason: reply.reason };
    },
  };

  const planMode: PlanModeAdapter = {
    state: (agentId) => plans.state(agentId),
    enter(agentId, planPath) {
      plans.enter(agentId, planPath);
      log(agentId, 'info', `entered plan mode (plan file ${planPath})`);
    },
    exit(agentId) {
      plans.exit(agentId);
      log(agentId, 'info', 'left plan mode');
    },
    async review(request, signal): Promise<PlanDecision> {
      if (!broker.asker) {
        if (approvePlans) {
          log(request.agentId, 'info', 'plan approved by configuration (permissions.approvePlans = true)');
          return { kind: 'approve' };
        }
        log(request.agentId, 'warn', `plan rejected: ${headlessReason}`);
        return {
          kind: 'reject',
          reason: `nobody can approve a plan here (${headlessReason}); configuration approves plans only with permissions.approvePlans = true`,
        };
      }
      const requester = requesterOf(request.agentId, request.role);
      log(request.agentId, 'info', `waiting for plan approval (${describeRequester(requester)})`);
      const decision = await broker.plan({ ...request, requester }, signal);
      if (isUnanswered(decision)) return { kind: 'reject', reason: decision.reason };
      log(request.agentId, 'info', `plan answer: ${decision.kind}`);
      return decision;
    },
  };

  const confirm = async (request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer> => {
    if (!broker.asker) {
      log(request.agentId, 'warn', `refused without asking: ${request.summary} (${headlessReason})`);
      return { kind: 'unavailable', reason: `nobody can answer here (${headlessReason})` };
    }
    const requester = requesterOf(request.agentId, request.role);
    const approval: ApprovalRequest = {
      requester,
      callId: request.callId,
      tool: request.tool,
      summary: request.summary,
      detail: request.card,
      card: request.card,
      reason: `${request.tool} always asks, in every permission mode`,
      alwaysRules: [],
    };
    log(request.agentId, 'info', `waiting for approval: ${request.summary} (${describeRequester(requester)})`);
    const answer = await broker.approve(approval, signal);
    if (isUnanswered(answer)) return { kind: 'unavailable', reason: answer.reason };
    if (answer.kind === 'deny') {
      log(request.agentId, 'warn', `the user rejected: ${request.summary}`);
      return answer.feedback?.trim() ? { kind: 'rejected', feedback: answer.feedback.trim() } : { kind: 'rejected' };
    }
    log(request.agentId, 'info', `approved: ${request.summary}`);
    return { kind: 'approved' };
  };

  return {
    mode,
    swarmMode,
    confirm,
    permission,
    extraVetoes: () => exitPlanAloneVeto,
    userChannel,
    planMode,
    planModeFor: (agentId) => plans.state(agentId),
    tools: createPlanModeTools(planMode),
    broker,
    sessionRules: () => session.map((r) => r.text),
    restoreSessionRules(rules) {
      for (const text of rules) {
        const rule = parseRule(text, 'allow', 'session');
        if (!isRuleProblem(rule) && !session.some((r) => r.text === rule.text)) session.push(rule);
      }
    },
  };
}

/** Whether a suggested rule's text names the protected path (so "allow always" may offer it). */
function namesPath(text: string, subject: CallSubject, target: ProtectedTarget): boolean {
  const rule = parseRule(text, 'allow', 'session');
  return !isRuleProblem(rule) && namesProtectedPath(rule, subject, target);
}

/**
 * The message to the model when nobody can approve a write or edit of a protected path: `permissions.headless =
 * "allow"` does not cover it, so only a rule in murmur.toml that names the path pre-approves it.
 */
export function protectedHeadlessDenial(
  subject: CallSubject,
  why: string,
  headlessReason: string,
  wouldAllow: readonly string[],
): string {
  const summary = callSummary(subject);
  const how =
    wouldAllow.length > 0
      ? `To pre-approve this path, add a rule that names it to murmur.toml: ${tomlAllowLine(wouldAllow)} ` +
        `(a generic rule such as "${subject.tool}" or "${subject.tool}(**)" does not cover protected paths).`
      : 'Its path goes through a symbolic link into a protected path, so no rule can pre-approve it; a rule can name ' +
        'the path the link leads to, for writes made to that path itself.';
  return (
    `Not run: ${summary} needs a person's approval (${why}), but nobody can approve it here (${headlessReason}); ` +
    'permissions.headless = "allow" does not cover protected paths. ' +
    `${how} Do not retry it as is: carry on without it, or say in your reply what you need.`
  );
}

/** The message to the model when nobody can approve: why, and the rule that would allow the call. */
export function headlessDenial(
  subject: CallSubject,
  why: string,
  headlessReason: string,
  wouldAllow: readonly string[],
  mode: PermissionMode,
): string {
  const summary = callSummary(subject);
  const ways = [`add ${tomlAllowLine(wouldAllow)} to murmur.toml`];
  if (subject.tool === 'agent_swarm') ways.push('run with --swarm-mode (or swarm.swarmMode = true)');
  else if (
    mode === 'manual' &&
    (subject.tool === 'write' || subject.tool === 'edit') &&
    subject.path?.relative !== undefined
  ) {
    ways.push('run with --permission-mode auto (edits inside the workspace)');
  }
  ways.push('set permissions.headless = "allow" to allow such calls when nobody can answer');
  return (
    `Not run: ${summary} needs approval (${why}), but nobody can approve it here (${headlessReason}), so it is denied by policy. ` +
    `The rule that would allow it: ${wouldAllow.map((r) => JSON.stringify(r)).join(', ')} — to allow it, ${ways.join('; or ')}. ` +
    'Do not retry it as is: carry on without it, or say in your reply what you need.'
  );
}
