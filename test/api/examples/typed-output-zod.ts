// README "Use it from code": a typed output from a zod 4 schema (any Standard Schema that exports JSON Schema).
import { z } from 'zod';
import { createMurmur, type ModelProvider } from '../../../api/index.js';

const Review = z.object({
  verdict: z.enum(['approve', 'request-changes']),
  // zod checks what JSON Schema cannot say, and its transforms make the value the row keeps.
  comments: z.array(z.object({ line: z.number().int().positive(), text: z.string().trim().min(1) })),
});

export async function reviewFiles(cwd: string, files: string[], model?: ModelProvider) {
  const murmur = await createMurmur({ cwd, model, sessions: false });
  try {
    const report = await murmur.swarm({
      template: 'Review {{item}}: a verdict, and a comment per line that needs one.',
      items: files,
      role: 'explore',
      output: Review,
    });
    // row.output is z.output<typeof Review> once zod accepted the answer.
    return report.items.map((row) => ({
      file: row.item,
      verdict: row.output?.verdict ?? row.outcome,
      lines: row.output?.comments.map((comment) => comment.line) ?? [],
    }));
  } finally {
    await murmur.close();
  }
}
