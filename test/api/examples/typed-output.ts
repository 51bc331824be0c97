// README "Use it from code": a typed swarm output, one checked object per item (object items, {{field}} placeholders).
import { createMurmur, Type, type ModelProvider } from '../../../api/index.js';

const Finding = Type.Object({
  files: Type.Array(Type.String()),
  confidence: Type.Union([Type.Literal('high'), Type.Literal('low')]),
});

export async function whereConfigured(cwd: string, modules: { name: string; dir: string }[], model?: ModelProvider) {
  const murmur = await createMurmur({ cwd, model, sessions: false });
  try {
    const report = await murmur.swarm({
      template: 'Which files under {{dir}} read the configuration of the {{name}} module?',
      items: modules,
      role: 'explore',
      output: Finding,
    });
    const found: Record<string, string[]> = {};
    for (const row of report.items) {
      // row.input is the module object; row.output is Static<typeof Finding> once its answer passed the schema.
      if (row.output?.confidence === 'high') found[row.input.name] = row.output.files;
      else found[row.input.name] = [`(${row.outcome}${row.reason ? `: ${row.reason}` : ''})`];
    }
    return found;
  } finally {
    await murmur.close();
  }
}
