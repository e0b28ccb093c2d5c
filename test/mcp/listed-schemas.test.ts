/** Tools list the JSON Schemas converted when the bundle was built, and are converted by the SDK where there is none. */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazySchema } from '../../src/core/lazy-schema.js';
import { silentLogger } from '../../src/log.js';
import { listedJsonSchema, listSchemasFrom, toolSchemaTable } from '../../src/mcp/listed-schemas.js';
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

describe('tools listed from a table, with lazy schemas', () => {
  it('lists and registers without building the schemas; the first call validates with them', async () => {
    let builds = 0;
    const input = lazySchema(() => {
      builds += 1;
      return z.object({ text: z.string().min(2) });
    });
    const output = lazySchema(() => {
      builds += 1;
      return z.object({ text: z.string() });
    });
    const table: ToolSchemaTable = { echo: { input: { type: 'object', properties: { text: { type: 'string' } } }, output: { type: 'object' } } };
    const server = echoServer(table, input, output);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'listed-schemas-test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const [tool] = (await client.listTools()).tools;
      expect(tool?.inputSchema).toEqual(table.echo!.input);
      expect(builds).toBe(0);
      const refused = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('Too small');
      expect(builds).toBe(1);
      const echoed = await client.callTool({ name: 'echo', arguments: { text: 'xy' } });
      expect(echoed.structuredContent).toEqual({ text: 'xy' });
      expect(builds).toBe(2);
    } finally {
      await client.close();
    }
  });
});

describe('the listed JSON Schemas, shorter than the conversion', () => {
  it("keep an input schema's caps, patterns and descriptions, without $schema and zod's safe-integer bounds", () => {
    const input = z.object({
      slug: z.string().min(1).max(64).regex(/^[a-z]+$/).describe('which'),
      count: z.number().int().min(1).max(50).optional(),
      offset: z.number().int().optional(),
      items: z.array(z.object({ n: z.number().int() })).max(20).optional(),
    });
    const listed = listedJsonSchema('input', input['~standard'].jsonSchema.input({ target: 'draft-2020-12' }));
    expect(listed).toEqual({
      type: 'object',
      properties: {
        slug: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z]+$', description: 'which' },
        count: { type: 'integer', minimum: 1, maximum: 50 },
        offset: { type: 'integer' },
        items: { type: 'array', maxItems: 20, items: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
      },
      required: ['slug'],
    });
  });

  it("keep an output schema's top level: each field with its JSON type", () => {
    const output = z.object({
      id: z.number().int().describe('the id'),
      link: z.string().nullable(),
      tags: z.array(z.string()),
      nested: z.object({ deep: z.string() }).optional(),
      either: z.union([z.string(), z.number()]),
      anything: z.unknown(),
    });
    expect(listedJsonSchema('output', output['~standard'].jsonSchema.output({ target: 'draft-2020-12' }))).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        link: { type: ['string', 'null'] },
        tags: { type: 'array' },
        nested: { type: 'object' },
        either: { type: ['string', 'number'] },
        anything: {},
      },
    });
  });
});
