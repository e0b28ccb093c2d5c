/**
 * get_enduser_data, erase_enduser_data and upsert_profiles over a real engine
 * and the SDK client: structured content matching the spec's shapes (checked
 * by the client against outputSchema), paging, the destructive hint, and
 * per-user failures.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EndUserData, ErasedEndUserData, UpsertProfilesResponse } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { ERAS, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';

const USER = 'mcp-user-1';

describe.each(ERAS)('MCP end-user tools (%s)', (era) => {
  let test: TestBackend;
  let client: Client;

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'docs' });
    await test.backend.admin!.createGuru({ slug: 'other' });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  it('declares erase_enduser_data destructive and the reads read-only', async () => {
    const { tools } = await client.listTools();
    const hints = new Map(tools.map((tool) => [tool.name, tool.annotations]));
    expect(hints.get('erase_enduser_data')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints.get('get_enduser_data')).toMatchObject({ readOnlyHint: true });
    expect(hints.get('upsert_profiles')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    // What it erases includes the files attached to the end user's questions.
    expect(tools.find((tool) => tool.name === 'erase_enduser_data')?.description).toMatch(/for good/);
  });

  it('reads the bundle page by page, saying which offset comes next', async () => {
    for (const question of ['first search', 'second search', 'third search']) {
      await test.backend.assistant.semanticSearch('docs', { question, external_user_id: USER });
    }
    const first = await call('get_enduser_data', { guru_slug: 'docs', external_user_id: USER, limit: 2 });
    expect(first.isError).toBeFalsy();
    const data = EndUserData.parse(first.structuredContent);
    expect(data.data.searches.map((s) => s.query)).toEqual(['first search', 'second search']);
    expect(data.data.page).toMatchObject({ limit: 2, offset: 0, has_more: { searches: true } });
    expect(textOf(first)).toContain('call get_enduser_data with offset=2 (limit=2)');
    const second = await call('get_enduser_data', { guru_slug: 'docs', external_user_id: USER, limit: 2, offset: 2 });
    expect(EndUserData.parse(second.structuredContent).data.searches.map((s) => s.query)).toEqual(['third search']);
    expect(textOf(second)).toContain('This is everything held about this end user.');
  });

  it('upserts profiles, shows them, and reports the users that failed', async () => {
    const saved = await call('upsert_profiles', { guru_slug: 'docs', users: [{ external_user_id: USER, memory: { plan: 'pro' } }] });
    expect(UpsertProfilesResponse.parse(saved.structuredContent)).toMatchObject({ status: 'success', processed_users: 1 });
    expect(textOf(saved)).toBe('Saved 1 of 1 profile(s) in docs.');
    const shown = await call('get_enduser_data', { guru_slug: 'docs', external_user_id: USER });
    expect(textOf(shown)).toContain('{"plan":"pro"}');

    const big = { blob: 'x'.repeat(17 * 1024) };
    const partly = await call('upsert_profiles', {
      guru_slug: 'docs',
      users: [{ external_user_id: 'ok-user', memory: {} }, { external_user_id: 'big-user', memory: big }],
    });
    expect(partly.isError).toBe(true);
    expect(textOf(partly)).toBe('Failed to process some users: 1 of 2 profile(s) saved.\n- user 1 (big-user): memory must be at most 16 KiB as JSON');
  });

  it('erases the end user of one guru and reports the counts', async () => {
    await test.backend.assistant.semanticSearch('docs', { question: 'x', external_user_id: USER });
    await test.backend.assistant.semanticSearch('other', { question: 'y', external_user_id: USER });
    const erased = await call('erase_enduser_data', { guru_slug: 'docs', external_user_id: USER });
    expect(ErasedEndUserData.parse(erased.structuredContent).deleted).toMatchObject({ searches: 1, profile: 0 });
    expect(textOf(erased)).toBe(
      `Erased the data of end user ${USER} in docs. Deleted questions: 0, rejected questions: 0, conversations: 0, searches: 1, profile: 0, memories: 0, attachments: 0.`,
    );
    const other = await call('get_enduser_data', { guru_slug: 'other', external_user_id: USER });
    expect(EndUserData.parse(other.structuredContent).data.searches).toHaveLength(1);
  });
});
