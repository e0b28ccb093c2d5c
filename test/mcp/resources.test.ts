import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Answer} from '../../src/core/schemas.js';
import { DataSource, SessionList } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { ERAS, INSTALL_GUIDE, connectClient, expectNotFound, openTestBackend } from './support.js';
import type { TestBackend } from './support.js';
import { answerOf } from '../support/mcp-answer.js';

async function readText(client: Client, uri: string): Promise<{ text: string; mimeType: string | undefined }> {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  const [content] = contents;
  expect(content!.uri).toBe(uri);
  return { text: String((content as { text: unknown }).text), mimeType: content!.mimeType };
}

describe.each(ERAS)('MCP resources (%s)', (era) => {
  let test: TestBackend;
  let client: Client;
  let answer: Answer;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await test.backend.admin!.createGuru({ slug: 'pancakes' });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
    const added = (await client.callTool({
      name: 'add_sources',
      arguments: { guru_slug: 'frob', text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }], wait: true },
    })) as CallToolResult;
    expect(added.isError).toBeFalsy();
    const asked = (await client.callTool({ name: 'ask', arguments: { guru_slug: 'frob', question: 'How do I install Frobnicator?' } })) as CallToolResult;
    answer = answerOf(asked);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  it('offers the templates: collections, their pages, one conversation and its files', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual([
      'guru://{guru_slug}/data-sources',
      'guru://{guru_slug}/data-sources{?page}',
      'guru://{guru_slug}/sessions',
      'guru://{guru_slug}/sessions/{session_id}',
      'guru://{guru_slug}/sessions/{session_id}/attachments/{n}',
      'guru://{guru_slug}/sessions{?page}',
    ]);
    for (const template of resourceTemplates) {
      expect(template.description).toBeTruthy();
      // An attachment is a log (text/plain) or a PDF's Markdown: its type is the read's.
      if (!template.uriTemplate.endsWith('{n}')) expect(template.mimeType).toMatch(/^(application\/json|text\/markdown)$/);
    }
  });

  it('lists the collections of every guru, not each conversation', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual([
      'guru://frob/data-sources',
      'guru://frob/sessions',
      'guru://pancakes/data-sources',
      'guru://pancakes/sessions',
    ]);
  });

  it('keeps resources/list as it is after 50 asks; their sessions are read through the template and the pages', async () => {
    const before = (await client.listResources()).resources;
    const sessionIds = [answer.session_id];
    for (let index = 1; index <= 50; index++) {
      const asked = await test.backend.assistant.ask('frob', { question: `How do I install Frobnicator, take ${index}?`, fetch_existing: false }, { origin: 'MCP' });
      sessionIds.push(asked.session_id);
    }
    const after = (await client.listResources()).resources;
    expect(after).toHaveLength(before.length);
    expect(after.map((resource) => resource.uri)).toEqual(before.map((resource) => resource.uri));

    // Every session is on one page of the collection, reached by following next_page_uri.
    const paged: string[] = [];
    let uri: string | null = 'guru://frob/sessions';
    let pages = 0;
    while (uri !== null) {
      const page = JSON.parse((await readText(client, uri)).text) as { today: { id: string }[]; last_week: unknown[]; older: unknown[]; has_more: boolean; next_page_uri: string | null };
      paged.push(...page.today.map((session) => session.id));
      expect(page.next_page_uri === null).toBe(!page.has_more);
      uri = page.next_page_uri;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(paged.sort()).toEqual([...sessionIds].sort());
    expect(JSON.parse((await readText(client, 'guru://frob/sessions?page=99')).text)).toMatchObject({ today: [], has_more: false, next_page_uri: null });

    const last = sessionIds.at(-1)!;
    const { text, mimeType } = await readText(client, `guru://frob/sessions/${last}`);
    expect(mimeType).toBe('text/markdown');
    expect(text).toContain('take 50?');
  });

  it('answers "Resource … not found" for a page that is not a whole number from 1', async () => {
    for (const page of ['0', '-1', 'two', '1.5', '1000001']) {
      await expectNotFound(client, `guru://frob/sessions?page=${page}`);
      await expectNotFound(client, `guru://frob/data-sources?page=${page}`);
    }
  });

  it("resolves an answer's question_url to the conversation in Markdown", async () => {
    const { text, mimeType } = await readText(client, answer.question_url);
    expect(mimeType).toBe('text/markdown');
    expect(text).toContain(`# Session ${answer.session_id}`);
    expect(text).toContain('## 1. How do I install Frobnicator?');
    expect(text).toContain(answer.content.trim());
  });

  it('reads the session list and the data sources as JSON', async () => {
    const sessions = await readText(client, 'guru://frob/sessions');
    expect(sessions.mimeType).toBe('application/json');
    expect(SessionList.parse(JSON.parse(sessions.text)).today.map((session) => session.id)).toEqual([answer.session_id]);

    const sources = await readText(client, 'guru://frob/data-sources');
    const page = z.object({ count: z.number(), next_page: z.number().nullable(), results: z.array(DataSource) }).parse(JSON.parse(sources.text));
    expect(page.count).toBe(1);
    expect(page.results.map((source) => [source.title, source.status])).toEqual([['Install guide', 'SUCCESS']]);

    const empty = await readText(client, 'guru://pancakes/data-sources');
    expect(JSON.parse(empty.text)).toMatchObject({ count: 0, results: [], next_page_uri: null });
    expect(JSON.parse((await readText(client, 'guru://frob/data-sources?page=2')).text)).toMatchObject({ count: 1, page: 2, results: [], next_page_uri: null });
  });

  it('answers "Resource … not found" for unknown gurus, sessions and paths', async () => {
    await expectNotFound(client, 'guru://frob/sessions/no-such-session');
    await expectNotFound(client, 'guru://nope/sessions');
    await expectNotFound(client, 'guru://nope/data-sources');
    await expectNotFound(client, `guru://pancakes/sessions/${answer.session_id}`);
    await expectNotFound(client, 'guru://frob/elsewhere', 'Resource not found: guru://frob/elsewhere');
    await expectNotFound(client, 'file:///etc/passwd', 'Resource not found: file:///etc/passwd');
  });

  it('sends protocol errors of the SDK itself with their code once', async () => {
    const failure = await client
      .complete({ ref: { type: 'ref/resource', uri: 'nope://{x}' }, argument: { name: 'x', value: '' } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(ProtocolError);
    expect((failure as ProtocolError).message).toBe('Resource template nope://{x} not found');
  });

  it('answers "Resource … not found" for a session id that is not valid percent-encoding', async () => {
    await expectNotFound(client, 'guru://frob/sessions/%E0%A4%A');
    await expectNotFound(client, 'guru://frob/sessions/%ZZ');
  });

  it('completes guru slugs and session ids', async () => {
    const gurus = await client.complete({
      ref: { type: 'ref/resource', uri: 'guru://{guru_slug}/sessions' },
      argument: { name: 'guru_slug', value: 'pa' },
    });
    expect(gurus.completion.values).toEqual(['pancakes']);

    const all = await client.complete({
      ref: { type: 'ref/resource', uri: 'guru://{guru_slug}/data-sources' },
      argument: { name: 'guru_slug', value: '' },
    });
    expect(all.completion.values.sort()).toEqual(['frob', 'pancakes']);

    const sessions = await client.complete({
      ref: { type: 'ref/resource', uri: 'guru://{guru_slug}/sessions/{session_id}' },
      argument: { name: 'session_id', value: answer.session_id.slice(0, 4) },
      context: { arguments: { guru_slug: 'frob' } },
    });
    expect(sessions.completion.values).toEqual([answer.session_id]);

    const elsewhere = await client.complete({
      ref: { type: 'ref/resource', uri: 'guru://{guru_slug}/sessions/{session_id}' },
      argument: { name: 'session_id', value: '' },
      context: { arguments: { guru_slug: 'pancakes' } },
    });
    expect(elsewhere.completion.values).toEqual([]);
  });

  it('keeps a connection limited to one guru inside it', async () => {
    const scoped = await connectClient({ backend: test.backend, logger: silentLogger, scope: 'pancakes' }, era);
    try {
      const { resources } = await scoped.listResources();
      expect(resources.map((resource) => resource.uri).sort()).toEqual(['guru://pancakes/data-sources', 'guru://pancakes/sessions']);
      await expectNotFound(scoped, 'guru://frob/sessions');
      await expectNotFound(scoped, answer.question_url);
      const completion = await scoped.complete({
        ref: { type: 'ref/resource', uri: 'guru://{guru_slug}/sessions' },
        argument: { name: 'guru_slug', value: '' },
      });
      expect(completion.completion.values).toEqual(['pancakes']);
      const sessions = await readText(scoped, 'guru://pancakes/sessions');
      expect(JSON.parse(sessions.text)).toMatchObject({ today: [], has_more: false });
    } finally {
      await scoped.close();
    }
  });

  it('follows the tool groups: conversations with asking, data sources with knowledge', async () => {
    const templatesOf = async (other: Client) => (await other.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate).sort();
    const asking = await connectClient({ backend: test.backend, logger: silentLogger, tools: ['asking'] }, era);
    const knowledge = await connectClient({ backend: test.backend, logger: silentLogger, tools: ['knowledge'] }, era);
    const speech = await connectClient({ backend: test.backend, logger: silentLogger, tools: ['speech'] }, era);
    try {
      expect(await templatesOf(asking)).toEqual([
        'guru://{guru_slug}/sessions',
        'guru://{guru_slug}/sessions/{session_id}',
        'guru://{guru_slug}/sessions/{session_id}/attachments/{n}',
        'guru://{guru_slug}/sessions{?page}',
      ]);
      expect((await asking.listResources()).resources.map((resource) => resource.uri).sort()).toEqual(['guru://frob/sessions', 'guru://pancakes/sessions']);
      await readText(asking, answer.question_url);
      await expectNotFound(asking, 'guru://frob/data-sources', 'Resource not found: guru://frob/data-sources');

      expect(await templatesOf(knowledge)).toEqual(['guru://{guru_slug}/data-sources', 'guru://{guru_slug}/data-sources{?page}']);
      expect((await knowledge.listResources()).resources.map((resource) => resource.uri).sort()).toEqual(['guru://frob/data-sources', 'guru://pancakes/data-sources']);
      await expectNotFound(knowledge, answer.question_url, `Resource not found: ${answer.question_url}`);

      expect((await speech.listResources()).resources).toEqual([]);
    } finally {
      await Promise.all([asking.close(), knowledge.close(), speech.close()]);
    }
  });
});
