/**
 * The tools take their parameters from the core request schemas, caps included:
 * an oversized argument is refused by the input validation, before the tool runs
 * and before anything is stored.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { storedRows, type StoredTable } from '../support/stored-rows.js';
import { ERAS, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';

describe.each(ERAS)('MCP tools: caps on their arguments (%s)', (era) => {
  let test: TestBackend;
  let client: Client;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob' });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  /** Calls a tool that must refuse its arguments in validation, storing nothing in `table`. */
  async function expectRefused(name: string, args: Record<string, unknown>, table: StoredTable): Promise<void> {
    const before = storedRows(test.dir, table);
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toMatch(/Input validation error/);
    expect(storedRows(test.dir, table)).toBe(before);
  }

  it('publish the caps in their input schemas', async () => {
    const { tools } = await client.listTools();
    const property = (tool: string, name: string) =>
      (tools.find((candidate) => candidate.name === tool)?.inputSchema.properties as Record<string, Record<string, unknown>>)[name];
    expect(property('semantic_search', 'question')).toMatchObject({ maxLength: 10_000 });
    expect(property('ask', 'question')).toMatchObject({ maxLength: 10_000 });
    expect(property('get_session', 'session_id')).toMatchObject({ maxLength: 256 });
    expect(property('add_sources', 'website_urls')).toMatchObject({ maxItems: 1500, items: { maxLength: 4096 } });
    expect(property('add_sources', 'text_sources')).toMatchObject({ maxItems: 1000 });
  });

  it('refuse a search or a question over 10,000 characters, storing nothing', async () => {
    const question = 'word '.repeat(2001);
    await expectRefused('semantic_search', { question }, 'searches');
    await expectRefused('ask', { question }, 'questions');
  });

  it('refuse a crawl URL over 4096 characters, starting no crawl', async () => {
    await expectRefused('start_crawl', { url: `https://example.com/${'a'.repeat(4096)}` }, 'crawls');
  });

  it('refuse more URLs or texts than one request takes, adding no source', async () => {
    await expectRefused('add_sources', { website_urls: Array.from({ length: 1501 }, (_, i) => `https://example.com/${i}`) }, 'data_sources');
    await expectRefused('add_sources', { text_sources: Array.from({ length: 1001 }, (_, i) => ({ name: `t${i}`, content: 'x' })) }, 'data_sources');
  });

  it('refuse a session id over 256 characters', async () => {
    await expectRefused('get_session', { session_id: 's'.repeat(257) }, 'questions');
    await expectRefused('delete_session', { session_id: 's'.repeat(257) }, 'questions');
  });
});
