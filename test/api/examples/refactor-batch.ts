// README "Use it from code", example 1: a refactor batch with verifiers (the import is 'murmur-agents' in the README).
import { createMurmur } from '../../../api/index.js';

export async function convertToEsm(cwd: string, files: string[]): Promise<boolean> {
  const murmur = await createMurmur({ cwd, permissionMode: 'auto' });
  try {
    const report = await murmur.swarm({
      template: 'Convert {{item}} from CommonJS to ES modules; keep its exports.',
      items: files,
      role: 'worker',
      verify: true,
      maxConcurrency: 4,
    });
    for (const item of report.items) console.log(`${item.item}: ${item.outcome} (verifier: ${item.verdict ?? 'none'})`);
    return report.status === 'completed';
  } finally {
    await murmur.close();
  }
}
