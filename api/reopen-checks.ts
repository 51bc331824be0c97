// What resume() and continue() check before a session reopens (each a MurmurOptionsError naming the option): the
// message a conversation can take, the answers against what the session waits for, the agents in code it used, and
// the queue URL a queue swarm goes back to.
import type { Resumable } from '../host/resume.js';
import { codeAgentsUsed } from '../host/resume.js';
import { continueProblem } from '../host/continue.js';
import { applyAnswers } from '../host/answers.js';
import { queueUrlFromEnv } from '../host/queue.js';
import type { Environment } from '../host/workspace-config.js';
import { checkResumable, type RegisteredAgent } from './agents.js';
import type { ResumeOptions } from './run-options.js';
import { fail } from './option-error.js';

/** Checks a reopening; returns the queue URL of a queue swarm's session. */
export function checkReopen(
  resumable: Resumable,
  options: ResumeOptions,
  message: string | undefined,
  env: Environment,
  agents: ReadonlyMap<string, RegisteredAgent>,
): string | undefined {
  const cannot = message !== undefined ? continueProblem(resumable, message) : undefined;
  if (cannot !== undefined) fail(cannot.startsWith('the message') ? 'message' : 'sessionId', `${cannot}.`);
  if (options.answers !== undefined && (typeof options.answers !== 'object' || options.answers === null))
    fail('answers', 'give an object: { "AGENT/CALL": { kind: "allow_once" }, … }.');
  const answered = applyAnswers(resumable.interruptions, options.answers ?? {});
  if (!answered.ok) fail('answers', `${answered.error}.`);
  checkResumable(resumable.session.id, codeAgentsUsed(resumable), agents);
  const savedQueue = resumable.swarm?.queue;
  if (!savedQueue) return undefined;
  // A queue URL with a password is never saved: MURMUR_QUEUE gives it again.
  const fromEnv = queueUrlFromEnv(env);
  if (!fromEnv.ok) fail('sessionId', `${fromEnv.error}.`);
  const queueUrl = fromEnv.url || savedQueue.url;
  if (!queueUrl)
    fail(
      'sessionId',
      `session ${resumable.session.id} ran on a queue whose URL was not saved (it held a password); set MURMUR_QUEUE to resume it.`,
    );
  return queueUrl;
}
