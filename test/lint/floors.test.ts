// The linter keeps the floors (eslint.config.js): an import that climbs from a lower room into a higher one fails
// `npm run lint`, which npm test runs first; tests and benchmarks may import anything.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../murmur-bin.js';

async function problems(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${filePath}` });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the floors', () => {
  it.each([
    [
      'tools/fs/new-tool.ts',
      "import { Engine } from '../../orchestrator/engine.js';",
      'tools/ may not import orchestrator',
    ],
    ['tools/contract-extra.ts', "import type { RunReport } from '../host/reports.js';", 'tools/ may not import'],
    ['protocol/extra.ts', "import type { ToolResult } from '../tools/contract.js';", 'protocol/ may not import'],
    ['roles/extra.ts', "import { Engine } from '../orchestrator/engine.js';", 'roles/ may not import orchestrator'],
    ['orchestrator/extra.ts', "import { runSwarm } from '../swarm/runner.js';", 'orchestrator/ may not import swarm'],
    ['swarm/extra.ts', "import { main } from '../cli/main.js';", 'swarm/ may not import'],
    ['swarm/extra.ts', "import type { Engine } from '../orchestrator/engine.js';", 'swarm/ may not import'],
    [
      'swarm/queue/extra.ts',
      "import type { AgentRecord } from '../../orchestrator/agent-tree.js';",
      'swarm/ may not import',
    ],
    ['swarm/extra.ts', "const m = await import('../orchestrator/engine.js');\nexport { m };", 'swarm/ may not import'],
    ['host/extra.ts', "import { createMurmur } from '../api/index.js';", 'host/ may not import'],
    ['cli/extra.ts', "import { createMurmur } from '../api/index.js';", 'cli/ may not import api'],
    [
      'dashboards/extra.ts',
      "const m = await import('../swarm/runner.js');\nexport { m };",
      'dashboards/ may not import swarm',
    ],
    ['cli/extra.ts', "import { prepareSwarm } from '../swarm/launch.js';", 'cli/ may not import'],
    ['api/extra.ts', "import { Engine } from '../orchestrator/engine.js';", 'api/ may not import orchestrator'],
    // Scheduled tasks are a room of their own (was orchestrator/cron): the engine does not reach them, and they show
    // nothing on a screen.
    ['orchestrator/extra.ts', "import { CronStore } from '../scheduler/store.js';", 'orchestrator/ may not import'],
    ['scheduler/extra.ts', "import { renderHistory } from '../dashboards/web/pages.js';", 'scheduler/ may not import'],
    // …and, like any front end, it reaches sessions, models and clocks through host/ (its locks are host/'s too).
    ['scheduler/extra.ts', "import { stateHome } from '../orchestrator/session.js';", 'scheduler/ may not import'],
    ['scheduler/extra.ts', "import type { Clock } from '../orchestrator/clock.js';", 'scheduler/ may not import'],
    ['cli/extra.ts', "const m = await import('../swarm/queue/worker.js');\nexport { m };", 'cli/ may not import'],
    // The library imports host/ and protocol/ only: the rooms below reach it through host/'s re-exports, values or
    // types alike.
    ['api/extra.ts', "import { EventBus } from '../orchestrator/events.js';", 'api/ may not import orchestrator'],
    ['api/extra.ts', "import type { EventType } from '../orchestrator/events.js';", 'api/ may not import'],
    ['api/extra.ts', "import type { RuntimeTool } from '../tools/contract.js';", 'api/ may not import'],
    ['api/extra.ts', "import { defineRuntimeTool } from '../tools/contract.js';", 'api/ may not import'],
    ['api/extra.ts', "import type { ItemResult } from '../swarm/report.js';", 'api/ may not import'],
    ['api/extra.ts', "import type { AgentProfile } from '../roles/profile.js';", 'api/ may not import'],
    ['api/extra.ts', "import type { CronStore } from '../scheduler/store.js';", 'api/ may not import'],
    [
      'api/extra.ts',
      "const m = await import('../orchestrator/models/resolve.js');\nexport { m };",
      'api/ may not import',
    ],
    // The command line: host/ and protocol/, the screens, the scheduler and config parsing; no other file of the
    // engine's room, and nothing of the tools, the roles or the swarm, not even a type.
    [
      'cli/extra.ts',
      "import { SessionStore } from '../orchestrator/session.js';",
      'orchestrator (but orchestrator/config.js)',
    ],
    ['cli/extra.ts', "import type { SessionStore } from '../orchestrator/session.js';", 'cli/ may not import'],
    ['cli/extra.ts', "import type { ItemResult } from '../swarm/report.js';", 'cli/ may not import'],
    ['cli/extra.ts', "import type { Engine } from '../orchestrator/engine.js';", 'cli/ may not import'],
    ['cli/extra.ts', "import { ConfigError } from '../orchestrator/models/config.js';", 'cli/ may not import'],
    ['cli/extra.ts', "import type { RuntimeTool } from '../tools/contract.js';", 'cli/ may not import'],
    ['cli/extra.ts', "import { loadAgentDefinitions } from '../roles/definitions.js';", 'cli/ may not import'],
    [
      'cli/extra.ts',
      "const m = await import('../orchestrator/models/resolve.js');\nexport { m };",
      'orchestrator (but orchestrator/config.js)',
    ],
  ])('refuses %s importing a higher room', async (file, code, expected) => {
    const found = await problems(file, code);
    expect(found.join('\n')).toMatch(/^(@typescript-eslint\/)?no-restricted-(imports|syntax): /);
    expect(found.join('\n')).toContain(expected);
  });

  it('lets a room import its own files and the rooms below it, and a test anything', async () => {
    expect(
      await problems(
        'tools/extra.ts',
        "import type { ToolContent } from '../protocol/messages.js';\nimport { resultText } from './contract.js';",
      ),
    ).toEqual([]);
    expect(
      await problems(
        'swarm/extra.ts',
        "import type { MurmurEvent } from '../orchestrator/events.js';\nimport { subagentProfileFor } from '../roles/subagent-policy.js';",
      ),
    ).toEqual([]);
    // A front end reaches the rooms below through host/ and names the boundary types from protocol/; the command line
    // also parses murmur.toml (orchestrator/config.js, eagerly or lazily) and uses the screens and the scheduler.
    expect(
      await problems(
        'cli/extra.ts',
        [
          "import { ConfigError, loadConfig } from '../orchestrator/config.js';",
          "import type { MurmurConfig } from '../orchestrator/config.js';",
          "import { startRun } from '../host/run.js';",
          "import { SessionStore } from '../host/session-store.js';",
          "import type { ItemResult } from '../protocol/reports.js';",
          "import { fit } from '../dashboards/format.js';",
          "import { CronStore } from '../scheduler/store.js';",
          "const m = await import('../host/model-resolution.js');",
          "const c = await import('../orchestrator/config.js');",
          'export { m, c };',
        ].join('\n'),
      ),
    ).toEqual([]);
    expect(
      await problems(
        'api/extra.ts',
        "import { EventBus } from '../host/event-bus.js';\nimport type { RunReport } from '../protocol/reports.js';",
      ),
    ).toEqual([]);
    expect(
      await problems(
        'scheduler/extra.ts',
        "import { withLock } from '../host/lock.js';\nimport { stateHome } from '../host/session-store.js';",
      ),
    ).toEqual([]);
    expect(
      await problems(
        'test/extra.test.ts',
        "import { main } from '../cli/main.js';\nimport { createMurmur } from '../api/index.js';",
      ),
    ).toEqual([]);
  });
});
