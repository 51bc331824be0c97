// Continuing a conversation: a run's session, finished or not, takes one more message from the person and its main
// agent answers it with the whole conversation before it (`murmur run --session ID "…"`, the library's continue()).
// It is a resume with a message: the session, its settings and its sandbox are the saved ones.
import type { Engine } from '../orchestrator/engine.js';
import type { Resumable } from './resume.js';

/** Why a session cannot take a message (a swarm, an unanswered request, an empty message), or undefined. */
export function continueProblem(resumable: Resumable, message: string): string | undefined {
  const id = resumable.session.id;
  if (message.trim() === '') return 'the message is empty; give the next thing to say to the conversation';
  if (resumable.swarm)
    return `session ${id} is a swarm (${resumable.title}): a message continues a run's conversation; finish a swarm with murmur resume ${id}`;
  if (!resumable.state.agents.some((agent) => agent.id === 'main'))
    return `session ${id} has no main agent to continue`;
  const waiting = resumable.interruptions.filter((i) => i.answer === undefined);
  if (waiting.length > 0)
    return `session ${id} waits for ${waiting.length === 1 ? 'an answer' : `${waiting.length} answers`} (${waiting[0]!.summary}); answer with murmur resume ${id} --approve/--deny, or in the console, then continue it`;
  return undefined;
}

/** Gives the restored main agent the message; a finished one is to run again on it. */
export function addMessage(engine: Engine, message: string): void {
  const main = engine.agentTree.get('main');
  if (!main) throw new Error('this session has no main agent to continue');
  main.agent.enqueue({ role: 'user', content: message }, false);
  main.agent.interrupt();
}
