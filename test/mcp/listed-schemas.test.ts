/** Tools list the JSON Schemas converted when the bundle was built, and are converted by the SDK where there is none. */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../../src/log.js';
import { listSchemasFrom, toolSchemaTable } from '../../src/mcp/listed-schemas.js';
import type { ToolSchemaTable } from '../../src/mcp/listed-schemas.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { openTestBackend } from './support.js';

/** `tools/list` of `server`, through the SDK's client. */
async function listTools(server: McpServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'listed-schemas-test', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

function echoServer(table: ToolSchemaTable | undefined, input: z.ZodObject, output: z.ZodObject): McpServer {
  const server = new McpServer({ name: 'echo', version: '1.0.0' });
  listSchemasFrom(server, table);
  server.registerTool('echo', { inputSchema: input, outputSchema: output }, async (args: unknown) => ({
    content: [{ type: 'text', text: JSON.stringify(args) }],
    structuredContent: args as Record<string, unknown>,
  }));
  return server;
}

describe('tool schemas listed from a table', () => {
  it("lists the table's schemas for a tool it has, and still validates with the tool's own", async () => {
    const input = z.object({ text: z.string() });
    const output = z.object({ text: z.string() });
    const table: ToolSchemaTable = {
      echo: { input: { type: 'object', properties: { from: { const: 'table' } } }, output: { type: 'object', properties: { out: { const: 'table' } } } },
    };
    const server = echoServer(table, input, output);
    const [tool] = await listTools(server);
    expect(tool?.inputSchema).toEqual(table.echo!.input);
    expect(tool?.outputSchema).toEqual(table.echo!.output);
    expect(input.safeParse({ text: 1 }).success).toBe(false);
    expect(input['~standard'].validate({ text: 'x' })).toEqual({ value: { text: 'x' } });
  });

  it('leaves a tool the table lacks to the SDK', async () => {
    const input = z.object({ text: z.string().describe('what to echo') });
    const output = z.object({ text: z.string() });
    const [tool] = await listTools(echoServer({ other: { input: { type: 'object' } } }, input, output));
    expect(tool?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string', description: 'what to echo' } }, required: ['text'] });
  });

  it("makes, from guru-mcp's server, a table that lists what the SDK converts itself", async () => {
    const test = await openTestBackend();
    try {
      const options = { backend: test.backend, logger: silentLogger, era: 'legacy' as const };
      const converted = await listTools(createMcpServer(options));
      const table = toolSchemaTable(createMcpServer(options));
      expect(Object.keys(table)).toEqual(converted.map((tool) => tool.name));
      for (const tool of converted) {
        expect(table[tool.name]?.input).toEqual(tool.inputSchema);
        expect(table[tool.name]?.output).toEqual(tool.outputSchema);
      }
    } finally {
      await test.close();
    }
  });
});
