// The console's page script is JavaScript held in TypeScript strings (no build step): an escape that a template
// literal eats (`\'` inside a quoted string) breaks the whole page while every TypeScript check passes. Parsed
// here, so it fails in a second instead of as timeouts in every browser suite.
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CONSOLE_JS } from '../../dashboards/web/assets.js';

describe("the console's page script", () => {
  it('parses as a script', () => {
    expect(() => new Script(CONSOLE_JS, { filename: 'console.js' })).not.toThrow();
  });
});
