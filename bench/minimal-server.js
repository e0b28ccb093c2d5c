// The smallest MCP server the SDK allows over stdio: the baseline for guru-mcp's start-up cost.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'minimal', version: '1.0.0' });

server.registerTool('ping', { description: 'Replies with pong.' }, async () => ({
  content: [{ type: 'text', text: 'pong' }],
}));

await server.connect(new StdioServerTransport());
