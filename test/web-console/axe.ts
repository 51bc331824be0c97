// axe-core run inside a page of the browser tests: the package's axe.min.js injected with addScriptTag, then
// axe.run on the whole document. Returns the serious and critical violations, each as one readable line.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from './helpers.js';

export const AXE_SCRIPT = path.join(ROOT, 'node_modules/axe-core/axe.min.js');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as AxeResult;
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .slice(0, 5)
          .map((n) => JSON.stringify(n.target))
          .join(', ')}`,
    );
}
