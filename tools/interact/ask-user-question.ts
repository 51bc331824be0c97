// ask_user_question: puts 1-4 multiple-choice questions to the user through the user channel it is made with, in
// the foreground or as a background task (in the task store it is made with) whose answer comes back as a message.
import { Type } from '@sinclair/typebox';
import type { QuestionReply, QuestionRequest, UserChannel } from '../adapters-interaction.js';
import {
  defineRuntimeTool,
  errorResult,
  pendingResult,
  textResult,
  type RuntimeTool,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
  type ToolTraits,
} from '../contract.js';
import type { TaskStore } from '../ports.js';
import {
  checkQuestionArgs,
  MAX_HEADER_CHARS,
  MAX_OPTIONS,
  MAX_QUESTIONS,
  MIN_OPTIONS,
  MIN_QUESTIONS,
  OTHER_LABEL,
  prepareQuestionArgs,
  toUserQuestions,
  type QuestionArgs,
} from './question-rules.js';

const OptionSchema = Type.Object(
  {
    label: Type.String({ minLength: 1, description: 'The choice as the user sees it (a few words).' }),
    description: Type.String({ minLength: 1, description: 'What choosing it means.' }),
  },
  { additionalProperties: false },
);

const QuestionSchema = Type.Object(
  {
    question: Type.String({ minLength: 1, description: 'The full question; must end with "?".' }),
    options: Type.Array(OptionSchema, {
      minItems: MIN_OPTIONS,
      maxItems: MAX_OPTIONS,
      description: `${MIN_OPTIONS}-${MAX_OPTIONS} choices. Do not add "${OTHER_LABEL}": a free-text "${OTHER_LABEL}" answer is always added.`,
    }),
    header: Type.Optional(
      Type.String({
        maxLength: MAX_HEADER_CHARS,
        description: `Short tag shown above the question (at most ${MAX_HEADER_CHARS} characters).`,
      }),
    ),
    multi_select: Type.Optional(
      Type.Boolean({ default: false, description: 'Let the user pick several options. Default false.' }),
    ),
  },
  { additionalProperties: false },
);

const Parameters = Type.Object(
  {
    questions: Type.Array(QuestionSchema, {
      minItems: MIN_QUESTIONS,
      maxItems: MAX_QUESTIONS,
      description: `${MIN_QUESTIONS}-${MAX_QUESTIONS} questions asked together.`,
    }),
    background: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Return at once with a task id; the answer arrives later as a message. Default false.',
      }),
    ),
  },
  { additionalProperties: false },
);

function cannotAsk(reason: string): ToolResult {
  return errorResult(
    `Nobody can answer questions here (${reason}). Ask the user in your reply text instead, and meanwhile go on with what does not depend on the answer.`,
  );
}

/** The reply as the model reads it. */
export function formatReply(reply: QuestionReply): string {
  if (reply.kind === 'declined') {
    const why = reply.reason ? ` (${reply.reason})` : '';
    return `The user declined to answer${why}. Use your best judgement, or ask again in your reply text.`;
  }
  const lines = ['The user answered:'];
  reply.answers.forEach((answer, index) => {
    const picks = answer.selected.map((label) =>
      label === OTHER_LABEL && answer.otherText !== undefined
        ? `${OTHER_LABEL}: ${JSON.stringify(answer.otherText)}`
        : label,
    );
    lines.push(`${index + 1}. ${answer.question} -> ${picks.length > 0 ? picks.join(', ') : '(nothing selected)'}`);
  });
  return lines.join('\n');
}

function failureText(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'The question was withdrawn before the user answered (the agent was stopped).';
  return `The question could not be asked: ${error instanceof Error ? error.message : String(error)}`;
}

function startInBackground(ctx: ToolContext, ports: AskPorts, request: QuestionRequest): ToolResult {
  const { user } = ports;
  const first = request.questions[0]!.question;
  const more = request.questions.length > 1 ? ` (+${request.questions.length - 1} more)` : '';
  const info = ports.tasks.viewFor(ctx.agentId).start({
    kind: 'question',
    description: `Question for the user: ${first}${more}`,
    meta: { callId: ctx.callId },
    run: async (io) => {
      try {
        const reply = await user.ask(request, io.signal);
        // A background question has no call to keep open: nobody here to answer it is a decline.
        const text = formatReply(reply.kind === 'waiting' ? { kind: 'declined', reason: reply.reason } : reply);
        io.write(`${text}\n`);
        return { status: 'completed', result: text };
      } catch (error) {
        const text = failureText(error, io.signal);
        io.write(`${text}\n`);
        return { status: io.signal.aborted ? 'aborted' : 'failed', result: text };
      }
    },
  });
  return textResult(
    `Started background question task ${info.taskId}. The user's answer arrives as a message when they reply; go on with other work meanwhile.`,
    { taskId: info.taskId },
  );
}

/** What ask_user_question is made with: where questions go, and where background questions wait. */
export interface AskPorts {
  user: UserChannel;
  tasks: TaskStore;
}

/** ask_user_question's traits: asking changes nothing by itself, and a subagent never asks the user. */
export const ASK_USER_QUESTION_TRAITS = { selfChecked: true, notForSubagents: true } as const satisfies ToolTraits;

const definition: ToolDefinition<typeof Parameters> = {
  ...ASK_USER_QUESTION_TRAITS,
  name: 'ask_user_question',
  description:
    'Ask the user 1-4 multiple-choice questions when a decision is theirs to make (preferences, ambiguous requirements, trade-offs). ' +
    `Each question ends with "?" and has ${MIN_OPTIONS}-${MAX_OPTIONS} options with a label and a description; an "${OTHER_LABEL}" answer with free text is always added. ` +
    'Set multi_select to allow several picks. With background: true the call returns a task id at once and the answer arrives later as a message.',
  parameters: Parameters,
  prepareArguments: prepareQuestionArgs,
  validate: checkQuestionArgs,
  // Sequential: a question waits for a person, and two prompts at once from one agent would compete for the screen.
  executionMode: 'sequential',
};

export function createAskUserQuestionTool(ports: AskPorts): RuntimeTool {
  const { user } = ports;
  return defineRuntimeTool({
    def: definition,
    execute: async (ctx, input, signal) => {
      const args = input as QuestionArgs;
      const availability = user.availability();
      if (!availability.canAsk) return cannotAsk(availability.reason);
      const request: QuestionRequest = {
        agentId: ctx.agentId,
        role: ctx.role,
        callId: ctx.callId,
        questions: toUserQuestions(args),
      };
      if (args.background === true) return startInBackground(ctx, ports, request);
      try {
        const reply = await user.ask(request, signal);
        if (reply.kind === 'waiting') return pendingResult(reply.reason);
        return textResult(formatReply(reply), reply);
      } catch (error) {
        return errorResult(failureText(error, signal));
      }
    },
  });
}
