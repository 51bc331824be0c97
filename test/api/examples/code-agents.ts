// README "Use it from code": an agent defined in code, a hook on every tool call, and a run's tool access.
import { createMurmur, defineAgent, Type, type ModelProvider, type ToolCallDecision } from '../../../api/index.js';

const Location = Type.Object({ file: Type.String(), line: Type.Integer({ minimum: 1 }) });

// An explore agent: whatever it is asked, it holds at most read, grep and glob.
export const finder = defineAgent({
  name: 'finder',
  role: 'explore',
  instructions: 'You find where a setting is read in this repository. Search, then answer with the file and line.',
  tools: ['grep', 'glob', 'read'],
  output: Location,
});

export async function whereRead(cwd: string, setting: string, model?: ModelProvider) {
  const calls: string[] = [];
  const murmur = await createMurmur({
    cwd,
    model,
    sessions: false,
    agents: [finder],
    // Before the permission checks, on every tool call of every agent.
    onToolCall: ({ agent, tool, args }): ToolCallDecision => {
      calls.push(`${agent}: ${tool}`);
      const path = (args as { path?: unknown }).path;
      if (typeof path === 'string' && /(^|\/)\.env/.test(path))
        return { kind: 'deny', reason: '.env files hold secrets; they are never read' };
      return { kind: 'allow' };
    },
  });
  try {
    // By itself, with a typed answer (found.output is Static<typeof Location>)…
    const found = await murmur.run(`Where is ${setting} read?`, { agent: finder });
    // …or as a subagent the main agent calls by name, in a run without a shell or the web.
    const summary = await murmur.run(`Ask the finder agent where ${setting} is read, then give its default.`, {
      toolAccess: { deny: ['bash', 'fetch_url', 'web_search'] },
    });
    return { location: found.output, summary: summary.result, calls };
  } finally {
    await murmur.close();
  }
}
