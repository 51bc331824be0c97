// murmur as a library: `import { createMurmur } from 'murmur-agents'`. Everything here is the public, versioned surface;
// nothing else in the package is importable (package.json `exports`).
export {
  createMurmur,
  type Murmur,
  type RunOptions,
  type SwarmOptions,
  type ResumeReport,
  type ResumeOptions,
  type SessionSummary,
} from './murmur.js';
export type { RunHandle, RunEvents, EventsOptions, MurmurEvent, EventOf } from './handle-types.js';
export { defineAgent, type AgentDefinition, type DefinedAgent, type AgentRole } from './agents.js';
export type { ToolCallInfo, ToolCallDecision, ToolCallHandler } from './tool-hook.js';
export type { ToolAccess } from './tool-access.js';
export type { SwarmTemplate, TypedSwarmReport } from './output.js';
export { MurmurOptionsError } from './errors.js';
export type {
  MurmurOptions,
  PermissionMode,
  PermissionRules,
  Limits,
  ModelPrice,
  Effort,
  CustomTool,
  ApprovalHandler,
  QuestionHandler,
  SandboxOptions,
  McpServerEntry,
  McpStdioEntry,
  McpHttpEntry,
} from './options.js';
export type { TracingOptions } from './tracing.js';
export type { RunReport, RunStatus, SwarmReport, SwarmStatus } from '../protocol/reports.js';
export type { ItemAttempt, ItemResult, ItemOutcome, OutcomeCounts } from '../protocol/reports.js';
export type { AgentSummary, AgentStatus } from '../protocol/agents.js';
export type { Usage } from '../protocol/usage.js';
export type { EventType } from '../protocol/events.js';
export { EVENT_TYPES } from '../host/event-bus.js';
// Your own model (README "Your own model"): the provider interface, the conversation it is given and what it answers.
export type {
  ModelProvider,
  ModelCapabilities,
  ModelRequest,
  ModelResult,
  ModelError,
  ModelErrorKind,
} from '../host/model-provider.js';
export { modelError, errorKindForStatus, parseRetryAfter } from '../host/model-provider.js';
export type {
  Message,
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  ToolCall,
  ToolSchema,
  StopReason,
  ThinkingBlock,
  TextContent,
  MediaContent,
  ToolContent,
} from '../protocol/messages.js';
export type { ApprovalRequest, Requester, AgentLabel, QuestionRequest } from '../host/asker.js';
export type { ApprovalAnswer, QuestionReply } from '../protocol/interruptions.js';
export type { Interruption, InterruptionAnswer, PlanDecision } from '../protocol/interruptions.js';
export type { Answers } from '../host/answers.js';
export {
  defineTool,
  textResult,
  errorResult,
  Type,
  type RuntimeTool,
  type ToolContext,
  type ToolResult,
  type ToolDefinition,
  type ToolTraits,
  type Static,
  type TSchema,
  type AnySchema,
  type Infer,
  type StandardSchemaWithJson,
} from './tools.js';
