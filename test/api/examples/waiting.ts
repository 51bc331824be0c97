// README "Use it from code": a run that waits for a person, answered from code and carried on where it stopped.
import { createMurmur, type Answers, type MurmurOptions, type RunReport } from '../../../api/index.js';

export async function runAnswering(options: MurmurOptions, task: string, approve: (summary: string) => boolean) {
  const murmur = await createMurmur({ permissionMode: 'manual', ...options });
  try {
    let report: RunReport = await murmur.run(task);
    const asked: string[] = [];
    while (report.status === 'waiting' && report.sessionId) {
      const answers: Answers = {};
      for (const call of report.interruptions ?? []) {
        asked.push(call.summary);
        answers[`${call.agentId}/${call.callId}`] = approve(call.summary)
          ? { kind: 'allow_once' }
          : { kind: 'deny', feedback: 'not this one' };
      }
      const resumed = await murmur.resume(report.sessionId, { answers });
      if (resumed.kind !== 'run') throw new Error('a run resumes as a run');
      report = resumed;
    }
    return { status: report.status, result: report.result, asked };
  } finally {
    await murmur.close();
  }
}
