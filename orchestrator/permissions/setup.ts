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
import type { ApprovalAnswer, ApprovalRequest, Asker } from './asker.js';
import { describeRequester } from './asker.js';
import { inBackground, requesterOf, type AgentLookupRecord } from './agent-chain.js';
import { ApprovalBroker, isUnanswered } from './broker.js';
import type { InterruptionDesk } from './interruption-desk.js';
import type { Interruption } from '../../protocol/interruptions.js';
import type { QuestionReply, Waiting } from '../../tools/adapters-interaction.js';
import { pendingResult } from '../../tools/contract.js';
import { callDetail, callSummary } from './call-text.js';
import { isInsideWorkspace, realOrNearest } from './inside.js';
import { allowedBy } from './match.js';
import type { BatchVetoFor, PermissionGate } from '../runtime-ports.js';
import { exitPlanAloneVeto, isPlanFileWrite, PlanModeStore, planModeVeto } from './plan-mode.js';
import { decide, type Decision, type PermissionMode } from './policy.js';
import { namingRules } from './protected.js';
import { describeRuleProblem, parseRule, parseRuleLists, isRuleProblem, type PermissionRule } from './rules.js';
import { callPath, describeSubject, type CallSubject } from './subject.js';
import { suggestRules } from './suggest.js';
import {
  approvalCard,
  headlessDenial,
  namesPath,
  planCard,
  protectedHeadlessDenial,
  questionCard,
} from './held-words.js';

export type { AgentLookupRecord } from './agent-chain.js';

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
  /**
   * The run's interruptions: answers given to a resume settle their calls first; a call nobody can answer is held
   * there when it `holdsWhenNobody`, and a call whose prompt an abort withdrew is kept there to be asked again.
   */
  desk?: InterruptionDesk;
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
  const desk = options.desk;
  /**
   * Nobody can answer now, and this agent's calls are held for a person instead of being settled by policy — unless it
   * (or an agent above it) runs in the background, where no call waits on it to resume it.
   */
  const holding = (agentId: string) =>
    !broker.asker && desk?.holdsWhenNobody === true && !inBackground(options.agents, agentId);
  /** Keeps a call for a person (nobody here, or the prompt withdrawn by a stop): the call stays open. */
  const hold = (interruption: Interruption, words: string): ToolResult =>
    pendingResult(waitingFor(interruption, words).reason);
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
    const requester = requesterOf(options.agents, record.id, record.profile.name);
    const request: ApprovalRequest = {
      requester,
      callId: call.id,
      tool: subject.tool,
      summary,
      detail: callDetail(subject),
      reason: decision.why,
      alwaysRules,
    };
    const answered = (answer: ApprovalAnswer) => {
      if (answer.kind !== 'allow_always') return;
      for (const text of alwaysRules) {
        const rule = parseRule(text, 'allow', 'session');
        if (!isRuleProblem(rule) && !session.some((r) => r.text === rule.text)) session.push(rule);
      }
    };
    // Answered already (a resume given the person's answer): the call is settled by it, without asking again.
    const given = desk?.take(record.id, call.id, 'approval') as ApprovalAnswer | undefined;
    if (given) {
      answered(given);
      return approvalOutcome(record.id, summary, alwaysRules, given);
    }
    if (holding(record.id)) return hold(approvalCard(request), 'approval');
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
    log(record.id, 'info', `waiting for approval: ${summary} (${describeRequester(requester)})`);
    // An "allow always" given meanwhile for an identical call settles this one without asking again.
    const settled = (): ApprovalAnswer | undefined =>
      (guarded ? namingRules(session, subject, guarded) : allowedBy(session, subject))
        ? { kind: 'allow_once' }
        : undefined;
    const answer = await broker.approve(request, signal, { settled, answered });
    if (isUnanswered(answer)) {
      // Stopped while a person was being asked: the question is kept, to be asked again when the run resumes.
      if (signal.aborted && desk) return hold(approvalCard(request), 'approval');
      log(record.id, 'warn', `not run: ${summary}: ${answer.reason}`);
      return errorResult(`Not run: ${summary} needed approval, but ${answer.reason}. Do not retry it as is.`, {
        permission: 'unanswered',
      });
    }
    return approvalOutcome(record.id, summary, alwaysRules, answer);
  };

  /** What an answer does to the call: undefined lets it run, a result refuses it with the person's words. */
  const approvalOutcome = (
    agentId: string,
    summary: string,
    alwaysRules: readonly string[],
    answer: ApprovalAnswer,
  ): ToolResult | undefined => {
    if (answer.kind === 'allow_once') {
      log(agentId, 'info', `allowed: ${summary}`);
      return undefined;
    }
    if (answer.kind === 'allow_always') {
      log(agentId, 'info', `allowed for this session: ${alwaysRules.join(', ')}`);
      return undefined;
    }
    log(agentId, 'warn', `the user denied ${summary}`);
    const feedback = answer.feedback?.trim() ? ` The user said: ${JSON.stringify(answer.feedback.trim())}` : '';
    return errorResult(
      `Not run: the user denied this call (${summary}).${feedback} Do not retry it as is; adjust your approach or ask the user what they want.`,
      { permission: 'user-deny' },
    );
  };

  const userChannel: UserChannel = {
    availability: () =>
      broker.asker || desk?.holdsWhenNobody ? { canAsk: true } : { canAsk: false, reason: headlessReason },
    async ask(request, signal): Promise<QuestionReply | Waiting> {
      const requester = requesterOf(options.agents, request.agentId, request.role);
      const card = questionCard(request, requester);
      const settled = settledHere<QuestionReply>(card, 'an answer');
      if (settled) return settled;
      const reply = await broker.question(request, requester, signal);
      if (!isUnanswered(reply)) return reply;
      if (signal.aborted && desk) return waitingFor(card, 'an answer');
      if (signal.aborted) throw new Error(reply.reason);
      return { kind: 'declined', reason: reply.reason };
    },
  };

  /** Holds a question, a plan or a card for a person; the tool leaves its call open. */
  const waitingFor = (interruption: Interruption, words: string): Waiting => {
    desk!.hold(interruption);
    log(interruption.agentId, 'info', `waiting for a person: ${interruption.summary}`);
    return { kind: 'waiting', reason: `waiting for ${words}: ${interruption.summary}` };
  };

  /** The answer given to a resume for this call, else the call held when nobody can answer now, else undefined. */
  const settledHere = <A>(card: Interruption, words: string): A | Waiting | undefined => {
    const given = desk?.take(card.agentId, card.callId, card.kind);
    if (given) return given as A;
    return holding(card.agentId) ? waitingFor(card, words) : undefined;
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
    async review(request, signal): Promise<PlanDecision | Waiting> {
      const requester = requesterOf(options.agents, request.agentId, request.role);
      const card = planCard(request, requester);
      const settled = settledHere<PlanDecision>(card, 'a plan approval');
      if (settled) return settled;
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
      log(request.agentId, 'info', `waiting for plan approval (${describeRequester(requester)})`);
      const decision = await broker.plan({ ...request, requester }, signal);
      if (isUnanswered(decision) && signal.aborted && desk) return waitingFor(card, 'a plan approval');
      if (isUnanswered(decision)) return { kind: 'reject', reason: decision.reason };
      log(request.agentId, 'info', `plan answer: ${decision.kind}`);
      return decision;
    },
  };

  const confirm = async (request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer> => {
    const requester = requesterOf(options.agents, request.agentId, request.role);
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
    const settled = settledHere<ApprovalAnswer>(approvalCard(approval), 'approval');
    if (settled) return settled.kind === 'waiting' ? settled : confirmed(request, settled);
    if (!broker.asker) {
      log(request.agentId, 'warn', `refused without asking: ${request.summary} (${headlessReason})`);
      return { kind: 'unavailable', reason: `nobody can answer here (${headlessReason})` };
    }
    log(request.agentId, 'info', `waiting for approval: ${request.summary} (${describeRequester(requester)})`);
    const answer = await broker.approve(approval, signal);
    if (isUnanswered(answer) && signal.aborted && desk) return waitingFor(approvalCard(approval), 'approval');
    if (isUnanswered(answer)) return { kind: 'unavailable', reason: answer.reason };
    return confirmed(request, answer);
  };

  const confirmed = (request: ConfirmRequest, answer: ApprovalAnswer): ConfirmAnswer => {
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
