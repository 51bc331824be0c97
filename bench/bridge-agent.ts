// The agent side both bridge benchmarks use: a lease whose calls go through the same pipeline (gate and result
// budget) as a catalog call, over the given in-process tools.
import { runToolCallOutcome } from '../orchestrator/tool-batch.js';
import { bridgeHandler, shellCallId, type BridgeAgent } from '../tools/bridge/agent-handler.js';
import type { LeaseServer } from '../tools/bridge/lease-server.js';
import { createResultBudget, resultBudgetStage } from '../tools/budget.js';
import type { RuntimeTool } from '../tools/contract.js';

export interface BenchLease {
  /** The environment murmur-tools needs (PATH, the lease and its endpoint). */
  env: NodeJS.ProcessEnv;
  /** The murmur-tools command. */
  command: string;
  revoke(): void;
}

export async function benchLease(server: LeaseServer, tools: readonly RuntimeTool[]): Promise<BenchLease> {
  const budget = resultBudgetStage(createResultBudget({ agentHasRead: true }), 'bench');
  const agent: BridgeAgent = {
    agentId: 'bench',
    outputsDir: server.dir,
    catalog: async () => ({ offered: tools, refusal: () => undefined }),
    async call(tool, rawArguments, signal) {
      const call = { id: shellCallId(), name: tool.def.name, arguments: rawArguments };
      const { message, refused } = await runToolCallOutcome(call, {
        tools: new Map([[tool.def.name, tool]]),
        context: { agentId: 'bench', role: 'worker', cwd: process.cwd() },
        signal,
        hooks: { afterCall: [budget] },
      });
      const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      if (refused) return { kind: refused, message: text };
      return { kind: 'ran', result: { content: message.content, isError: message.isError }, callId: call.id };
    },
  };
  const owner = {};
  const lease = await server.lease(owner, bridgeHandler(agent));
  return {
    env: { PATH: process.env.PATH, ...lease.variables },
    command: `${lease.binDir}/murmur-tools`,
    revoke: () => server.revoke(owner),
  };
}
