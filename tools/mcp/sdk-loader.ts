// The MCP SDK is an optional peer of the library (tools/optional-peer.ts): an application that configures MCP servers
// installs it, and one that does not gets "the package @modelcontextprotocol/sdk is not installed …" as the server's
// start-up error instead of Node's module-not-found.
import { importPeer } from '../optional-peer.js';

/** Loads a module of the MCP SDK (`load` is its literal `import()`); a missing SDK is an error naming it. */
export const mcpSdk = <T>(load: () => Promise<T>): Promise<T> =>
  importPeer(load, '@modelcontextprotocol/sdk', 'MCP servers');
