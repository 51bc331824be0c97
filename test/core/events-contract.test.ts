// The events contract has one source of truth, protocol/events.ts (its types; orchestrator/events.ts lists them as
// EVENT_TYPES): the README's table of `--events` types must name exactly the declared types, less those deliberately
// kept out of the log.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, NOT_IN_EVENT_LOG } from '../../orchestrator/events.js';

const README = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md');

/** The first cells of the table whose header row starts with `| event |`. */
function readmeEventTable(text: string): string[] {
  const lines = text.split('\n');
  const header = lines.findIndex((line) => /^\|\s*event\s*\|/i.test(line));
  if (header < 0) return [];
  const names: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cell = line.split('|')[1]!.trim();
    const name = /^`([^`]+)`$/.exec(cell)?.[1];
    if (name) names.push(name);
  }
  return names;
}

describe('the events contract', () => {
  it('keeps exactly message and message.delta out of --events', () => {
    expect([...NOT_IN_EVENT_LOG].sort()).toEqual(['message', 'message.delta']);
  });

  it("lists in the README's event table every declared type that --events writes, and nothing else", () => {
    const listed = readmeEventTable(readFileSync(README, 'utf8'));
    expect(listed, 'README.md has no table with a header row "| event | …"').not.toEqual([]);
    const logged = EVENT_TYPES.filter((type) => !NOT_IN_EVENT_LOG.has(type));
    expect({
      missingFromReadme: logged.filter((t) => !listed.includes(t)),
      notDeclared: listed.filter((t) => !(logged as string[]).includes(t)),
    }).toEqual({
      missingFromReadme: [],
      notDeclared: [],
    });
    expect(new Set(listed).size, 'an event type is listed twice').toBe(listed.length);
  });
});
