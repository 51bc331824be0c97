// README "Use it from code", example 4: a run handle — its own events as they come, an abort with a reason, resume.
import { createMurmur } from '../../../api/index.js';

export async function runWithDeadline(cwd: string, task: string, deadlineMs: number) {
  const murmur = await createMurmur({ cwd });
  try {
    const run = murmur.run(task);
    const timer = setTimeout(() => run.abort(`no answer within ${deadlineMs} ms`), deadlineMs);
    const steps: string[] = [];
    for await (const event of run.events()) {
      if (event.type === 'tool.start') steps.push(`${event.agentId} calls ${event.tool}`);
      if (event.type === 'agent.end') steps.push(`${event.agentId} ${event.status}`);
    }
    clearTimeout(timer);
    const report = await run.done;
    const saved = murmur.listSessions().find((session) => session.id === run.sessionId);
    return { sessionId: run.sessionId, status: report.status, reason: report.reason, steps, saved: saved?.status };
  } finally {
    await murmur.close();
  }
}

export async function finish(cwd: string, sessionId: string): Promise<string> {
  const murmur = await createMurmur({ cwd });
  try {
    const report = await murmur.resume(sessionId);
    return report.kind === 'run' ? report.result : `${report.summary.completed ?? 0}/${report.items.length} items`;
  } finally {
    await murmur.close();
  }
}
