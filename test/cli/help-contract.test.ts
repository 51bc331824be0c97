// README.md's "## Commands (contract)" block is rendered from the command declarations: they cannot drift.
// After changing a command's flags or usage: npx tsc -p . && node dist/cli/contract.js --write
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeContract } from '../../cli/contract.js';
import { commandContract, WIDTH } from '../../cli/help.js';
import { COMMANDS } from '../../cli/commands.js';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

describe("README's command contract", () => {
  it('equals the text rendered from the declarations (regenerate: node dist/cli/contract.js --write)', () => {
    expect(readmeContract(readme)).toBe(commandContract());
  });

  it('names every command, keeps hidden flags out and stays within the width', () => {
    const contract = commandContract();
    for (const command of COMMANDS) expect(contract).toContain(`murmur ${command.name} `);
    for (const hidden of ['--exec-run', '--session-id', '--scheduler-pid']) expect(contract).not.toContain(hidden);
    for (const line of contract.split('\n')) expect(line.length).toBeLessThanOrEqual(WIDTH);
    expect(contract).toContain('[--description TEXT]');
    expect(contract).toContain('[--no-dashboard]');
  });
});
