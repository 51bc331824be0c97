// What the front ends get of MCP servers: parsing a server list (the library's `mcpServers`) and reading a
// workspace's .mcp.json, and the MCP tool source a run's engine is given (createMcpSource).
export { parseMcpServers, readMcpJson } from '../tools/mcp/config.js';
export { createMcpSource, type McpSource } from '../orchestrator/mcp-source.js';
