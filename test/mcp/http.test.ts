// Streamable HTTP servers: a real MCP server (the SDK's) on 127.0.0.1, configured with a header from ${VAR};
// the connection is dropped when the server goes away and made again on the next call once it is back.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resultText } from '../../tools/contract.js';
import { parseMcpServers } from '../../tools/mcp/config.js';
import { McpHub } from '../../tools/mcp/hub.js';
import { listMcpRuntimeTools } from '../../tools/mcp/mcp-tools.js';
import { never, toolContext } from './helpers.js';

const TOKEN = 'tok-123';

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'http-test', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }),
  );
  return server;
}

// Stateless mode: a fresh server and transport per request, as the SDK recommends.
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.headers.authorization !== `Bearer ${TOKEN}`) {
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
    return;
  }
  const server = mcpServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

function listen(port = 0): Promise<Server> {
  const http = createServer((req, res) => void handle(req, res));
  return new Promise((resolve) => http.listen(port, '127.0.0.1', () => resolve(http)));
}

function stop(http: Server): Promise<void> {
  http.closeAllConnections();
  return new Promise((resolve) => http.close(() => resolve()));
}

describe('streamable HTTP servers', () => {
  const hubs: McpHub[] = [];
  afterAll(async () => {
    await Promise.all(hubs.map((hub) => hub.close()));
  });

  it('lists and calls tools, sending the configured headers', async () => {
    let http = await listen();
    const port = (http.address() as AddressInfo).port;
    const { servers, problems } = parseMcpServers(
      {
        mcpServers: {
          remote: {
            type: 'http',
            url: `http://127.0.0.1:${port}/mcp`,
            headers: { Authorization: 'Bearer ${MCP_TOKEN}' },
          },
        },
      },
      'test.json',
      { MCP_TOKEN: TOKEN },
    );
    expect(problems).toEqual([]);
    const hub = new McpHub(servers, { restart: { backoffMs: 0 } });
    hubs.push(hub);
    const listed = await listMcpRuntimeTools(hub);
    expect(listed.problems).toEqual([]);
    const add = listed.tools.find((tool) => tool.def.name === 'mcp__remote__add')!;
    expect(resultText(await add.impl(toolContext(), { a: 2, b: 3 } as never, never, () => undefined))).toBe('5');

    // The server goes away: the call fails and says so; once it is back, the next call reconnects.
    await stop(http);
    const down = await add.impl(toolContext(), { a: 1, b: 1 } as never, never, () => undefined);
    expect(down.isError).toBe(true);
    expect(resultText(down)).toMatch(/connection failed|ECONNREFUSED|fetch failed/);
    expect(hub.state('remote')).toBe('crashed');
    http = await listen(port);
    try {
      expect(resultText(await add.impl(toolContext(), { a: 20, b: 22 } as never, never, () => undefined))).toBe('42');
      expect(hub.state('remote')).toBe('ready');
    } finally {
      await stop(http);
    }
  });

  it('reports a server that refuses the credentials', async () => {
    const http = await listen();
    try {
      const port = (http.address() as AddressInfo).port;
      const hub = new McpHub([
        {
          name: 'locked',
          transport: 'http',
          url: `http://127.0.0.1:${port}/mcp`,
          headers: {},
          source: 'configured',
          file: 'test',
        },
      ]);
      hubs.push(hub);
      const listed = await listMcpRuntimeTools(hub);
      expect(listed.tools).toEqual([]);
      expect(listed.problems[0]?.message).toMatch(/could not be started: .*401/);
    } finally {
      await stop(http);
    }
  });
});
