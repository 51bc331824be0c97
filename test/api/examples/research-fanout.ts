// README "Use it from code", example 2: a research fan-out collecting the report as data.
import { createMurmur } from '../../../api/index.js';

export async function research(cwd: string, questions: string[]) {
  const murmur = await createMurmur({ cwd, sessions: false });
  const progress: string[] = [];
  murmur.on('swarm.item', (event) => progress.push(`${event.item}: ${event.state}`));
  try {
    const report = await murmur.swarm({ template: 'Answer from the code in this folder: {{item}}', items: questions, role: 'explore' });
    const answers = Object.fromEntries(report.items.map((row) => [row.item, row.outcome === 'completed' ? row.text : `(${row.reason ?? row.outcome})`]));
    return { answers, summary: report.summary, progress };
  } finally {
    await murmur.close();
  }
}
