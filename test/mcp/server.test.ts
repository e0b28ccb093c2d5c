import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Answer,
  CreatedDataSource,
  CreatedGuru,
  DeletedGuru,
  DataSource,
  DeletedSession,
  Guru,
  SemanticSearchResponse,
  SessionConversation,
  SessionList,
} from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { CONFIG_GUIDE, ERAS, INSTALL_GUIDE, collectProgress, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';
import { answerOf } from '../support/mcp-answer.js';

const ALL_TOOLS = [
  'add_sources',
  'answer_progress',
  'ask',
  'crawl_status',
  'create_guru',
  'delete_guru',
  'delete_session',
  'delete_sources',
  'erase_enduser_data',
  'follow_up_examples',
  'get_enduser_data',
  'get_session',
  'import_channel',
  'import_playlist',
  'list_gurus',
  'list_sessions',
  'list_sources',
  'record_vote',
  'reindex_sources',
  'semantic_search',
  'start_crawl',
  'stop_crawl',
  'text_to_speech',
  'upsert_profiles',
];

/** Tools that reach outside the server: fetching URL sources, crawling, the video platform's API, the speech provider (version 2). */
const OPEN_WORLD_TOOLS = new Set(['add_sources', 'reindex_sources', 'start_crawl', 'import_channel', 'import_playlist', 'text_to_speech']);

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful result, with its structured content checked against the spec schema. */
async function callOk<T>(client: Client, name: string, args: Record<string, unknown>, schema: z.ZodType<T>): Promise<{ data: T; text: string }> {
  const result = await call(client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  // ask's structured content leaves out the answer's text, its first text content: answerOf joins them.
  const structured = name === 'ask' ? { ...answerOf(result) } : result.structuredContent;
  return { data: schema.parse(structured), text: textOf(result) };
}

async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return textOf(result);
}

describe.each(ERAS)('MCP server over a local engine (%s)', (era) => {
  let test: TestBackend;
  let client: Client;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  async function addGuides(guru?: string) {
    return callOk(
      client,
      'add_sources',
      {
        text_sources: [
          { name: 'Install guide', content: INSTALL_GUIDE },
          { name: 'Config guide', content: CONFIG_GUIDE },
        ],
        labels: ['docs'],
        wait: true,
        ...(guru === undefined ? {} : { guru_slug: guru }),
      },
      z.object({ results: z.array(CreatedDataSource), processing: z.object({ finished: z.array(DataSource), pending: z.array(z.number()) }) }),
    );
  }

  describe('tools/list', () => {
    it('lists the tools in one order, on every call and every connection (prompt caches depend on it)', async () => {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names[0]).toBe('list_gurus');
      expect(names.indexOf('ask')).toBeLessThan(names.indexOf('semantic_search'));
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(names);
      const other = await connectClient({ backend: test.backend, logger: silentLogger }, era);
      try {
        expect((await other.listTools()).tools.map((tool) => tool.name)).toEqual(names);
      } finally {
        await other.close();
      }
    });

    it('offers exactly the tools of this stage, each described and honestly annotated', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(ALL_TOOLS);
      for (const tool of tools) {
        expect(tool.title, tool.name).toBeTruthy();
        // Said in a few words (tools/list goes to the model with every conversation).
        expect(tool.description!.length, tool.name).toBeGreaterThan(30);
        expect(tool.description!.length, tool.name).toBeLessThan(450);
        expect(tool.outputSchema?.type, tool.name).toBe('object');
        expect(tool.inputSchema.type, tool.name).toBe('object');
        const hints = tool.annotations!;
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
          expect(typeof hints[hint], `${tool.name}.${hint}`).toBe('boolean');
        }
        expect(hints.openWorldHint, tool.name).toBe(OPEN_WORLD_TOOLS.has(tool.name));
        if (tool.name !== 'list_gurus' && tool.name !== 'create_guru') {
          expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).toContain('guru_slug');
        }
      }
      const byName = new Map(tools.map((tool) => [tool.name, tool.annotations!]));
      for (const name of ['semantic_search', 'list_sources', 'list_sessions', 'get_session', 'list_gurus', 'crawl_status']) {
        expect(byName.get(name)!.readOnlyHint, name).toBe(true);
      }
      // import_channel and import_playlist add the videos with add: true.
      for (const name of ['ask', 'add_sources', 'reindex_sources', 'delete_session', 'create_guru', 'start_crawl', 'stop_crawl', 'import_channel', 'import_playlist']) {
        expect(byName.get(name)!.readOnlyHint, name).toBe(false);
      }
      expect(byName.get('delete_session')!.destructiveHint).toBe(true);
      expect(byName.get('delete_sources')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
      expect(byName.get('delete_guru')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
      expect(byName.get('ask')!.destructiveHint).toBe(false);
      expect(byName.get('reindex_sources')).toMatchObject({ destructiveHint: false, idempotentHint: true });
      const ask = tools.find((tool) => tool.name === 'ask')!;
      expect(Object.keys(ask.inputSchema.properties ?? {}).sort()).toEqual([
        'evidence_tokens',
        'external_user_id',
        'guru_slug',
        'images',
        'log_files',
        'pdf_files',
        'question',
        'session_id',
      ]);
      const addSources = tools.find((tool) => tool.name === 'add_sources')!;
      expect(Object.keys(addSources.inputSchema.properties ?? {}).sort()).toEqual([
        'confluence_urls',
        'guru_slug',
        'jira_urls',
        'labels',
        'text_sources',
        'wait',
        'website_urls',
        'youtube_urls',
        'zendesk_urls',
      ]);
      expect(addSources.inputSchema.required ?? []).toEqual([]);
      expect(addSources.description).toContain('Confluence');
      const properties = addSources.inputSchema.properties as Record<string, { description?: string }>;
      for (const kind of ['jira', 'zendesk', 'confluence']) {
        // The refusal without the integration names the command that sets it.
        expect(properties[`${kind}_urls`]!.description, kind).toMatch(/needs its \w+ integration/);
      }
      const reindex = tools.find((tool) => tool.name === 'reindex_sources')!;
      expect(Object.keys(reindex.inputSchema.properties ?? {}).sort()).toEqual(['guru_slug', 'ids', 'wait']);
    });

    it('tells the model what the server is for', () => {
      const instructions = client.getInstructions() ?? '';
      expect(instructions).toContain('list_gurus');
      expect(instructions).toContain('add_sources');
      expect(instructions).toContain('session_id');
      expect(instructions).toMatch(/trust score/i);
    });

    it('names itself with a title and an icon a host can show without fetching anything', () => {
      const info = client.getServerVersion()!;
      expect(info).toMatchObject({ name: 'guru-mcp', title: 'Guru knowledge assistants' });
      expect(info.icons).toEqual([expect.objectContaining({ mimeType: 'image/svg+xml', src: expect.stringMatching(/^data:image\/svg\+xml;base64,/) })]);
      expect(Buffer.from(info.icons![0]!.src.split(',')[1]!, 'base64').toString()).toContain('<svg');
    });
  });

  describe('choosing the guru', () => {
    it('uses the only guru when none is named', async () => {
      const { data } = await callOk(client, 'list_sources', {}, z.object({ count: z.number() }));
      expect(data.count).toBe(0);
    });

    it('asks for guru_slug, listing the slugs, when several gurus exist', async () => {
      await test.backend.admin!.createGuru({ slug: 'pancakes' });
      const text = await callError(client, 'ask', { question: 'How do I install it?' });
      expect(text).toContain('guru_slug');
      expect(text).toContain('frob');
      expect(text).toContain('pancakes');
      await callOk(client, 'list_sources', { guru_slug: 'pancakes' }, z.object({ count: z.literal(0) }));
    });

    it('points to create_guru when no guru exists', async () => {
      const empty = await openTestBackend();
      const other = await connectClient({ backend: empty.backend, logger: silentLogger }, era);
      try {
        const text = await callError(other, 'list_sessions');
        expect(text).toContain('create_guru');
      } finally {
        await other.close();
        await empty.close();
      }
    });

    it('uses the configured default guru among several', async () => {
      const configured = await openTestBackend({ defaultGuru: 'second' });
      await configured.backend.admin!.createGuru({ slug: 'first' });
      await configured.backend.admin!.createGuru({ slug: 'second' });
      const other = await connectClient({ backend: configured.backend, logger: silentLogger }, era);
      try {
        await callOk(other, 'add_sources', { text_sources: [{ name: 'Note', content: 'Wibble facts.' }] }, z.object({ results: z.array(CreatedDataSource) }));
        expect((await configured.backend.assistant.listDataSources('second', { page: 1, page_size: 10 })).count).toBe(1);
        expect((await configured.backend.assistant.listDataSources('first', { page: 1, page_size: 10 })).count).toBe(0);
      } finally {
        await other.close();
        await configured.close();
      }
    });

    it('says when the configured default guru does not exist, naming the setting and the gurus there are', async () => {
      const configured = await openTestBackend({ defaultGuru: 'nope' });
      await configured.backend.admin!.createGuru({ slug: 'first' });
      const other = await connectClient({ backend: configured.backend, logger: silentLogger }, era);
      try {
        expect(await callError(other, 'ask', { question: 'Hello?' })).toBe(
          'Guru type nope not found\n"nope" is this server\'s default guru (GURU_DEFAULT_GURU or --default-guru), but no guru has that slug. Pass guru_slug as one of: first, or fix the setting.',
        );
        // Once a guru has that slug, the default works.
        await configured.backend.admin!.createGuru({ slug: 'nope' });
        await callOk(other, 'add_sources', { text_sources: [{ name: 'Note', content: 'Wibble facts.' }] }, z.object({ results: z.array(CreatedDataSource) }));
        expect((await configured.backend.assistant.listDataSources('nope', { page: 1, page_size: 10 })).count).toBe(1);
      } finally {
        await other.close();
        await configured.close();
      }
    });

    it("reports an unknown guru with the spec's message and what to do", async () => {
      expect(await callError(client, 'ask', { question: 'Hello?', guru_slug: 'nope' })).toBe(
        'Guru type nope not found\nList the gurus with list_gurus (or `guru-mcp guru list`) and use one of their slugs.',
      );
      expect(await callError(client, 'semantic_search', { question: 'Hello?', guru_slug: 'nope' })).toMatch(/^Guru not found/);
      expect(await callError(client, 'list_sessions', { guru_slug: 'nope' })).toMatch(/^Guru type nope not found/);
    });
  });

  describe('ask', () => {
    it('answers from the knowledge base with references, trust score and a session to follow up on', async () => {
      await addGuides();
      const first = await call(client, 'ask', { question: 'How do I install Frobnicator?' });
      expect(first.isError, textOf(first)).toBeFalsy();
      const answer = answerOf(first);
      expect(answer.trust_score).toBeGreaterThan(0);
      expect(answer.references.map((reference) => reference.title)).toContain('Install guide');
      expect(answer.question_url).toBe(`guru://frob/sessions/${answer.session_id}`);

      const text = textOf(first);
      expect(text.startsWith(answer.content.trim())).toBe(true);
      expect(text).toContain(`Trust score: ${answer.trust_score}/100`);
      expect(text).toContain(`Session: ${answer.session_id}`);
      expect(text).toMatch(/References:\n1\. Install guide/);
      expect(text).not.toContain('"trust_score"');
      expect(first.content).toContainEqual(expect.objectContaining({ type: 'resource_link', uri: answer.question_url }));

      const followUp = Answer.parse(
        (await callOk(client, 'ask', { question: 'And how do I configure it?', session_id: answer.session_id }, Answer)).data,
      );
      expect(followUp.session_id).toBe(answer.session_id);
      const session = await test.backend.assistant.getSession('frob', answer.session_id);
      expect(session.conversation.map((turn) => turn.source)).toEqual(['MCP', 'MCP']);
    });

    it('reports its stages, then streams the answer text, as progress notifications when asked to', async () => {
      await addGuides();
      const progress = collectProgress(client);
      const result = (await client.callTool({
        name: 'ask',
        arguments: { question: 'Where are the settings of Frobnicator kept?' },
        _meta: { progressToken: 'answer-1' },
      })) as CallToolResult;
      const answer = answerOf(result);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.every((item) => item.progressToken === 'answer-1')).toBe(true);
      const messages = progress.map((item) => item.message ?? '');
      const text = messages.findIndex((message) => !message.startsWith('» '));
      expect(messages.slice(0, text)).toEqual(['» Searching the knowledge base', '» Writing the answer']);
      expect(messages.slice(text).join('')).toBe(answer.content);
      const steps = progress.map((item) => item.progress);
      expect(steps).toEqual([...steps].sort((a, b) => a - b));
      expect(new Set(steps).size).toBe(steps.length);
    });

    it('sends no progress without a progress token', async () => {
      const progress = collectProgress(client);
      await callOk(client, 'ask', { question: 'Anything?' }, Answer);
      expect(progress).toEqual([]);
    });

    it('says plainly when the knowledge base has nothing', async () => {
      const { data, text } = await callOk(client, 'ask', { question: 'How do I bake pancakes?' }, Answer);
      expect(data.trust_score).toBe(0);
      expect(text).toContain('Trust score: 0/100');
      expect(text).toContain('References: none');
    });

    it('rejects an unknown session and invalid input', async () => {
      expect(await callError(client, 'ask', { question: 'Hi', session_id: 'no-such-session' })).toMatch(
        /^Session no-such-session not found\n/,
      );
      expect(await callError(client, 'ask', { question: '' })).toMatch(/Input validation error/);
      expect(await callError(client, 'ask', {})).toMatch(/Input validation error/);
      expect(await callError(client, 'ask', { question: 'Hi', guru_slug: 'Not A Slug' })).toMatch(/Input validation error/);
    });
  });

  describe('semantic_search', () => {
    it('finds related sources and filters by label', async () => {
      await addGuides();
      const { data, text } = await callOk(client, 'semantic_search', { question: 'wibble level settings' }, SemanticSearchResponse);
      expect(data.sources[0]?.title).toBe('Config guide');
      expect(data.total_sources).toBe(data.sources.length);
      expect(text).toMatch(/^\d+ source\(s\) related to "wibble level settings":\n1\. Config guide \(internal source\)/);
      // Without an embeddings provider the ranking is by words, and both renderings say so.
      expect(data.search_mode).toBe('lexical');
      expect(text).toMatch(/\nSearch mode: lexical \(words only\)$/);

      const none = await callOk(client, 'semantic_search', { question: 'wibble', labels: ['no-such-label'] }, SemanticSearchResponse);
      expect(none.data.sources).toEqual([]);
      expect(none.text).toContain('No sources matched');
      expect(none.text).toContain('Search mode: lexical');
      expect(await callError(client, 'semantic_search', { question: '' })).toMatch(/Input validation error/);
    });
  });

  describe('sources', () => {
    it('adds text at once, and waits for processing with progress when asked', async () => {
      const quick = await callOk(
        client,
        'add_sources',
        { text_sources: [{ name: 'Quick note', content: 'Frobnicator speaks French.' }] },
        z.object({ results: z.array(CreatedDataSource) }),
      );
      expect(quick.data.results).toEqual([expect.objectContaining({ type: 'Text', status: 'success', title: 'Quick note' })]);
      expect(quick.data.results[0]).not.toHaveProperty('content');
      expect(quick.text).toContain('call list_sources');

      const progress = collectProgress(client);
      const waited = (await client.callTool({
        name: 'add_sources',
        arguments: {
          text_sources: [
            { name: 'Install guide', content: INSTALL_GUIDE },
            { name: 'Config guide', content: CONFIG_GUIDE },
          ],
          wait: true,
        },
        _meta: { progressToken: 7 },
      })) as CallToolResult;
      expect(waited.isError, textOf(waited)).toBeFalsy();
      const structured = z
        .object({ results: z.array(CreatedDataSource), processing: z.object({ finished: z.array(DataSource), pending: z.array(z.number()) }) })
        .parse(waited.structuredContent);
      expect(structured.processing.pending).toEqual([]);
      expect(structured.processing.finished.map((source) => [source.title, source.status])).toEqual([
        ['Install guide', 'SUCCESS'],
        ['Config guide', 'SUCCESS'],
      ]);
      expect(textOf(waited)).toContain('Processing results:');
      const last = progress.at(-1)!;
      expect(last).toMatchObject({ progressToken: 7, progress: 2, total: 2 });
      expect(last.message).toBe('2 of 2 source(s) processed');
    });

    it('lists sources in pages and says how to get the next one', async () => {
      await addGuides();
      await callOk(client, 'add_sources', { text_sources: [{ name: 'Third', content: 'A third text.' }], wait: true }, z.object({ results: z.array(CreatedDataSource) }));
      const SourcePage = z.object({ count: z.number(), page: z.number(), page_size: z.number(), next_page: z.number().nullable(), results: z.array(DataSource) });

      const defaults = await callOk(client, 'list_sources', {}, SourcePage);
      expect(defaults.data).toMatchObject({ count: 3, page: 1, page_size: 50, next_page: null });

      const first = await callOk(client, 'list_sources', { page_size: 2 }, SourcePage);
      expect(first.data).toMatchObject({ count: 3, page: 1, page_size: 2, next_page: 2 });
      expect(first.data.results.map((source) => source.title)).toEqual(['Third', 'Config guide']);
      expect(first.text).toContain('call list_sources with page=2 (page_size=2)');
      expect(first.text).toMatch(/#\d+ TEXT SUCCESS "Third"/);

      const second = await callOk(client, 'list_sources', { page: 2, page_size: 2 }, SourcePage);
      expect(second.data.next_page).toBeNull();
      expect(second.data.results.map((source) => source.title)).toEqual(['Install guide']);
      expect(second.text).toContain('This is the last page.');

      expect(await callError(client, 'list_sources', { page_size: 1001 })).toMatch(/Input validation error/);
      expect(await callError(client, 'list_sources', { page: 0 })).toMatch(/Input validation error/);
    });

    it('refuses bad source input', async () => {
      expect(await callError(client, 'add_sources', { text_sources: [] })).toMatch(/Input validation error/);
      expect(await callError(client, 'add_sources', { text_sources: [{ name: 'x' }] })).toMatch(/Input validation error/);
      expect(await callError(client, 'add_sources', { website_urls: 'https://example.com' })).toMatch(/Input validation error/);
      expect(await callError(client, 'add_sources', { website_urls: [] })).toMatch(/Input validation error/);
      expect(await callError(client, 'add_sources', { labels: ['x'] })).toBe(
        'Invalid request parameters\ngive at least one of text_sources, website_urls, youtube_urls, jira_urls, zendesk_urls, confluence_urls',
      );
      expect(await callError(client, 'add_sources', { website_urls: ['not a url'] })).toMatch(/^Invalid request parameters\nwebsite_urls: /);
    });
  });

  describe('sessions', () => {
    async function askOnce(question: string, sessionId?: string) {
      return (await callOk(client, 'ask', { question, ...(sessionId === undefined ? {} : { session_id: sessionId }) }, Answer)).data;
    }

    it('lists, reads and deletes sessions', async () => {
      await addGuides();
      const answer = await askOnce('How do I install Frobnicator?');
      await askOnce('What does the wibble level do?', answer.session_id);

      const list = await callOk(client, 'list_sessions', {}, SessionList);
      expect(list.data.today.map((session) => session.id)).toEqual([answer.session_id]);
      expect(list.text).toContain(`session_id ${answer.session_id}`);
      expect(list.text).toContain('How do I install Frobnicator?');

      const searched = await callOk(client, 'list_sessions', { search_query: 'pancakes' }, SessionList);
      expect(searched.data.today).toEqual([]);
      expect(searched.text).toBe('No sessions found.');

      const read = await callOk(client, 'get_session', { session_id: answer.session_id }, SessionConversation);
      expect(read.data.conversation.map((turn) => turn.user_question)).toEqual([
        'How do I install Frobnicator?',
        'What does the wibble level do?',
      ]);
      expect(read.data).toMatchObject({ total_turns: 2, next_from_turn: null });
      expect(read.text).toContain('## 1. How do I install Frobnicator?');
      expect(read.text).toContain('## 2. What does the wibble level do?');

      const deleted = await callOk(client, 'delete_session', { session_id: answer.session_id }, DeletedSession);
      expect(deleted.data.session_id).toBe(answer.session_id);
      expect(await callError(client, 'delete_session', { session_id: answer.session_id })).toBe('Session is already deleted');
      expect(await callError(client, 'get_session', { session_id: answer.session_id })).toBe('Binge not found');
    });

    it('reports unknown sessions with the spec messages', async () => {
      expect(await callError(client, 'get_session', { session_id: 'nope' })).toBe('Binge not found');
      expect(await callError(client, 'delete_session', { session_id: 'nope' })).toBe('Session not found');
      expect(await callError(client, 'get_session', {})).toMatch(/Input validation error/);
    });

    it('hands out a long conversation in parts', async () => {
      const long = Array.from({ length: 60 }, (_, i) => `Frobnicator fact ${i}: the wibble level ${i} makes frobnication ${i} times faster than plain frobbing.`).join('\n\n');
      await callOk(client, 'add_sources', { text_sources: [{ name: 'Facts', content: `# Facts\n\n${long}` }], wait: true }, z.object({ results: z.array(CreatedDataSource) }));
      const first = await askOnce('What does the wibble level do to frobnication?');
      for (let i = 0; i < 59; i++) await askOnce(`And what about wibble level ${i} and frobnication?`, first.session_id);

      const turns: string[] = [];
      let from: number | null = 1;
      let parts = 0;
      while (from !== null) {
        const part = await callOk(client, 'get_session', { session_id: first.session_id, from_turn: from }, SessionConversation);
        const meta = z.object({ total_turns: z.number(), next_from_turn: z.number().nullable() }).parse(part.data);
        expect(meta.total_turns).toBe(60);
        expect(JSON.stringify(part.data.conversation).length).toBeLessThan(60_000);
        if (meta.next_from_turn !== null) expect(part.text).toContain(`Call get_session with from_turn=${meta.next_from_turn}`);
        turns.push(...part.data.conversation.map((turn) => turn.user_question));
        from = meta.next_from_turn;
        parts++;
      }
      expect(parts).toBeGreaterThan(1);
      expect(turns).toHaveLength(60);
      expect(turns[0]).toBe('What does the wibble level do to frobnication?');
      expect(turns[59]).toBe('And what about wibble level 58 and frobnication?');

      const past = await callOk(client, 'get_session', { session_id: first.session_id, from_turn: 61 }, SessionConversation);
      expect(past.data.conversation).toEqual([]);
      expect(past.text).toContain('past the end');
    });
  });

  describe('gurus', () => {
    it('creates and lists gurus', async () => {
      const created = await callOk(client, 'create_guru', { slug: 'pancakes', name: 'Pancake expert' }, CreatedGuru);
      expect(created.data).toMatchObject({ slug: 'pancakes', name: 'Pancake expert' });
      expect(created.text).toContain(created.data.api_key);
      expect(await test.backend.admin!.authenticate(created.data.api_key)).toBe('pancakes');

      const listed = await callOk(client, 'list_gurus', {}, z.object({ results: z.array(Guru) }));
      expect(listed.data.results.map((guru) => guru.slug).sort()).toEqual(['frob', 'pancakes']);
      expect(listed.text).toContain('- pancakes — Pancake expert');

      expect(await callError(client, 'create_guru', { slug: 'pancakes' })).toMatch(/^A guru with the slug pancakes already exists\n/);
      expect(await callError(client, 'create_guru', { slug: 'Bad Slug' })).toMatch(/Input validation error/);
    });

    it('deletes a guru named explicitly, with its knowledge; its keys stop working', async () => {
      const created = await callOk(client, 'create_guru', { slug: 'pancakes' }, CreatedGuru);
      await test.backend.assistant.createDataSources('pancakes', { text_sources: [{ name: 'Batter', content: 'Mix flour, eggs and milk.' }] });
      await test.backend.assistant.ask('pancakes', { question: 'How do I make batter?', external_user_id: 'cook', fetch_existing: false });
      expect(await callError(client, 'delete_guru', {})).toMatch(/Input validation error/);
      const deleted = await callOk(client, 'delete_guru', { guru_slug: 'pancakes' }, DeletedGuru);
      expect(deleted.data).toEqual({ slug: 'pancakes', deleted: { data_sources: 1, sessions: 1, questions: 1, crawls: 0, api_keys: 1 } });
      expect(deleted.text).toContain('Deleted the guru "pancakes"');
      expect(await test.backend.admin!.authenticate(created.data.api_key)).toBeUndefined();
      const listed = await callOk(client, 'list_gurus', {}, z.object({ results: z.array(Guru) }));
      expect(listed.data.results.map((guru) => guru.slug)).toEqual(['frob']);
      expect(await callError(client, 'delete_guru', { guru_slug: 'pancakes' })).toMatch(/^Guru type pancakes not found\n/);
      // A guru made again under the slug starts empty.
      await callOk(client, 'create_guru', { slug: 'pancakes' }, CreatedGuru);
      expect((await test.backend.assistant.listDataSources('pancakes', { page: 1, page_size: 10 })).count).toBe(0);
    });
  });

  describe('limited to one guru', () => {
    let scoped: Client;

    beforeEach(async () => {
      await test.backend.admin!.createGuru({ slug: 'pancakes' });
      scoped = await connectClient({ backend: test.backend, logger: silentLogger, scope: 'pancakes' }, era);
    });

    afterEach(async () => {
      await scoped.close();
    });

    it('hides guru administration and reaches only its guru', async () => {
      const { tools } = await scoped.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(ALL_TOOLS.filter((name) => !['list_gurus', 'create_guru', 'delete_guru'].includes(name)));
      expect(scoped.getInstructions()).not.toContain('list_gurus');

      await callOk(scoped, 'add_sources', { text_sources: [{ name: 'Batter', content: 'Mix flour, eggs and milk.' }] }, z.object({ results: z.array(CreatedDataSource) }));
      expect((await test.backend.assistant.listDataSources('pancakes', { page: 1, page_size: 10 })).count).toBe(1);
      expect((await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 10 })).count).toBe(0);

      await callOk(scoped, 'list_sources', { guru_slug: 'pancakes' }, z.object({ count: z.literal(1) }));
      const refused = await callError(scoped, 'list_sources', { guru_slug: 'frob' });
      expect(refused).toMatch(/^Guru type frob not found\n/);
      expect(refused).toContain('limited to the guru "pancakes"');
      // An unknown tool is a protocol error (SDK 1.x answered it with an isError result).
      await expect(scoped.callTool({ name: 'create_guru', arguments: { slug: 'x' } })).rejects.toThrow(/Tool create_guru not found/);
    });

    it('cannot read sessions of another guru', async () => {
      const answer = (await callOk(client, 'ask', { question: 'Hello?', guru_slug: 'frob' }, Answer)).data;
      expect(await callError(scoped, 'get_session', { session_id: answer.session_id })).toBe("You don't have access to this binge");
      expect(await callError(scoped, 'get_session', { session_id: answer.session_id, guru_slug: 'frob' })).toMatch(/limited to the guru/);
    });
  });
});
