// The rules of ask_user_question's arguments, checked by hand so every message can quote the bad value.
import type { UserQuestion } from '../adapters-interaction.js';
import { isRecord } from '../util/is-record.js';

export const MIN_QUESTIONS = 1;
export const MAX_QUESTIONS = 4;
export const MIN_OPTIONS = 2;
export const MAX_OPTIONS = 4;
export const MAX_HEADER_CHARS = 12;
export const OTHER_LABEL = 'Other';
export const OTHER_OPTION = { label: OTHER_LABEL, description: 'None of these: type your own answer.' } as const;

const TOP_KEYS = ['questions', 'background'];
const QUESTION_KEYS = ['question', 'options', 'header', 'multi_select'];
const OPTION_KEYS = ['label', 'description'];

export interface QuestionArgs {
  questions: Array<{
    question: string;
    options: Array<{ label: string; description: string }>;
    header?: string;
    multi_select?: boolean;
  }>;
  background?: boolean;
}

function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function unknownKeys(
  value: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  problems: string[],
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      problems.push(`${path}${quote(key)} is not a parameter (accepted: ${allowed.join(', ')})`);
  }
}

function chars(text: string): number {
  return [...text].length;
}

function checkOptions(options: unknown, path: string, problems: string[]): void {
  if (!Array.isArray(options)) {
    problems.push(`${path} must be a list of ${MIN_OPTIONS} to ${MAX_OPTIONS} options, got ${quote(options)}`);
    return;
  }
  if (options.length < MIN_OPTIONS || options.length > MAX_OPTIONS) {
    problems.push(
      `${path} has ${options.length} options; give ${MIN_OPTIONS} to ${MAX_OPTIONS} (an "${OTHER_LABEL}" answer is added for you)`,
    );
  }
  const seen = new Set<string>();
  options.forEach((option, index) => {
    const at = `${path}[${index}]`;
    if (!isRecord(option)) {
      problems.push(`${at} must be an object with label and description, got ${quote(option)}`);
      return;
    }
    unknownKeys(option, OPTION_KEYS, `${at}: `, problems);
    const { label, description } = option;
    if (typeof label !== 'string' || label.trim() === '') {
      problems.push(`${at}.label must be a non-empty string, got ${quote(label)}`);
    } else if (label.trim().toLowerCase() === OTHER_LABEL.toLowerCase()) {
      problems.push(
        `${at}.label ${quote(label)} is reserved: an "${OTHER_LABEL}" answer with free text is always added`,
      );
    } else if (seen.has(label.trim())) {
      problems.push(`${at}.label ${quote(label)} appears twice; labels must be unique within a question`);
    } else {
      seen.add(label.trim());
    }
    if (typeof description !== 'string' || description.trim() === '') {
      problems.push(`${at}.description must be a non-empty string, got ${quote(description)}`);
    }
  });
}

function checkQuestion(entry: unknown, path: string, seenQuestions: Set<string>, problems: string[]): void {
  if (!isRecord(entry)) {
    problems.push(`${path} must be an object with question and options, got ${quote(entry)}`);
    return;
  }
  unknownKeys(entry, QUESTION_KEYS, `${path}: `, problems);
  const { question, header, multi_select: multiSelect } = entry;
  if (typeof question !== 'string' || question.trim() === '') {
    problems.push(`${path}.question must be a non-empty string, got ${quote(question)}`);
  } else if (!question.trim().endsWith('?')) {
    problems.push(`${path}.question ${quote(question)} must end with "?"`);
  } else if (seenQuestions.has(question.trim())) {
    problems.push(`${path}.question ${quote(question)} is asked twice; questions must be unique`);
  } else {
    seenQuestions.add(question.trim());
  }
  checkOptions(entry.options, `${path}.options`, problems);
  if (header !== undefined) {
    if (typeof header !== 'string') problems.push(`${path}.header must be a string, got ${quote(header)}`);
    else if (chars(header) > MAX_HEADER_CHARS) {
      problems.push(`${path}.header ${quote(header)} has ${chars(header)} characters; at most ${MAX_HEADER_CHARS}`);
    }
  }
  if (multiSelect !== undefined && typeof multiSelect !== 'boolean') {
    problems.push(`${path}.multi_select must be true or false, got ${quote(multiSelect)}`);
  }
}

/** Returns the problems found (each naming the path, the bad value and the rule), or undefined. */
export function checkQuestionArgs(args: unknown): string | undefined {
  const problems: string[] = [];
  if (!isRecord(args)) return `arguments must be an object with "questions", got ${quote(args)}`;
  unknownKeys(args, TOP_KEYS, '', problems);
  const { questions, background } = args;
  if (!Array.isArray(questions)) {
    problems.push(
      `questions must be a list of ${MIN_QUESTIONS} to ${MAX_QUESTIONS} questions, got ${quote(questions)}`,
    );
  } else {
    if (questions.length < MIN_QUESTIONS || questions.length > MAX_QUESTIONS) {
      problems.push(
        `questions has ${questions.length} entries; ask ${MIN_QUESTIONS} to ${MAX_QUESTIONS} questions at a time`,
      );
    }
    const seen = new Set<string>();
    questions.forEach((entry, index) => checkQuestion(entry, `questions[${index}]`, seen, problems));
  }
  if (background !== undefined && typeof background !== 'boolean') {
    problems.push(`background must be true or false, got ${quote(background)}`);
  }
  if (problems.length === 0) return undefined;
  const shown = problems.slice(0, 6);
  if (problems.length > shown.length) shown.push(`and ${problems.length - shown.length} more`);
  return shown.join('; ');
}

/** Model-side camelCase and stringified lists, reshaped to the schema's names before the check. */
export function prepareQuestionArgs(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const out: Record<string, unknown> = { ...raw };
  if (typeof out.questions === 'string') {
    try {
      out.questions = JSON.parse(out.questions);
    } catch {
      // Left as is: the check reports it with its value.
    }
  }
  if (Array.isArray(out.questions)) {
    out.questions = out.questions.map((entry) => {
      if (!isRecord(entry) || !('multiSelect' in entry) || 'multi_select' in entry) return entry;
      const { multiSelect, ...rest } = entry;
      return { ...rest, multi_select: multiSelect };
    });
  }
  return out;
}

/** The questions as the host shows them, each with the "Other" choice appended. */
export function toUserQuestions(args: QuestionArgs): UserQuestion[] {
  return args.questions.map((entry) => {
    const question: UserQuestion = {
      question: entry.question.trim(),
      options: [...entry.options.map((o) => ({ label: o.label.trim(), description: o.description })), OTHER_OPTION],
      multiSelect: entry.multi_select ?? false,
    };
    if (entry.header !== undefined) question.header = entry.header;
    return question;
  });
}
