// The endpoint the README's "Your own model" example talks to, as a test server: POST { system, messages, tools }
// answers { text, toolCalls?, usage? }. First it asks for a glob of the notes, then it counts what glob returned;
// started with `refuse`, it answers every request HTTP 401.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HouseEndpoint {
  url: string;
  /** The bodies it was sent. */
  requests: { system: string; messages: { role: string; content?: unknown }[]; tools: { name: string }[] }[];
  close(): Promise<void>;
}

type Request = HouseEndpoint['requests'][number];

function answer(request: Request): { status: number; body: unknown } {
  const last = request.messages.at(-1);
  if (last?.role !== 'tool')
    return { status: 200, body: { text: '', toolCalls: [{ name: 'glob', arguments: { pattern: 'notes/*.md' } }] } };
  const found = JSON.stringify(last.content).match(/notes\/[\w-]+\.md/g) ?? [];
  return { status: 200, body: { text: `${found.length} notes.`, usage: { input: 120, output: 4 } } };
}

export async function startHouseEndpoint(refuse = false): Promise<HouseEndpoint> {
  const requests: Request[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const request = JSON.parse(text) as Request;
      requests.push(request);
      const { status, body } = refuse ? { status: 401, body: { error: 'no key' } } : answer(request);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/complete`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
