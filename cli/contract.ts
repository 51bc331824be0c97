// README.md's "## Commands (contract)" code block, rendered from the command declarations (cli/help.ts):
// `node dist/cli/contract.js` prints it; `--write` puts it into README.md (test/cli/help-contract.test.ts
// fails while the two differ).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandContract } from './help.js';

const HEADING = '## Commands (contract)';

/** Where the block's text starts and ends in README's text (after the opening fence, before the closing one). */
export function contractBlockRange(readme: string): { start: number; end: number } {
  const heading = readme.indexOf(`\n${HEADING}\n`);
  if (heading < 0) throw new Error(`README.md has no "${HEADING}" section`);
  const open = readme.indexOf('\n```\n', heading);
  const close = open < 0 ? -1 : readme.indexOf('\n```\n', open + 4);
  if (open < 0 || close < 0) throw new Error(`README.md's "${HEADING}" section has no \`\`\` code block`);
  return { start: open + 5, end: close + 1 };
}

/** The contract block as README.md has it now. */
export function readmeContract(readme: string): string {
  const { start, end } = contractBlockRange(readme);
  return readme.slice(start, end);
}

/** README's text with the block replaced by the rendered contract. */
export function withContract(readme: string): string {
  const { start, end } = contractBlockRange(readme);
  return readme.slice(0, start) + commandContract() + readme.slice(end);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--write')) {
    const file = resolve(fileURLToPath(new URL('../../README.md', import.meta.url)));
    writeFileSync(file, withContract(readFileSync(file, 'utf8')));
    process.stdout.write(`updated the command contract in ${file}\n`);
  } else process.stdout.write(commandContract());
}
