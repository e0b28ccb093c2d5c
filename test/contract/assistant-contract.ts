/**
 * The behaviour of the Assistant port, one suite for every implementation:
 * run against the local engine and against the remote adapter over our own
 * REST server. Both pass the same assertions; the few places where they must
 * differ say why.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Assistant } from '../../src/core/assistant.js';
import { Answer, ChannelImport, Crawl, PlaylistImport, SemanticSearchResponse, SessionConversation, SessionList } from '../../src/core/schemas.js';
import type { SemanticSearchRequest } from '../../src/core/schemas.js';
import { waitForCrawl } from '../../src/core/wait-for-crawl.js';
import { respond, startLoopbackServer, type LoopbackServer, type Route } from '../support/loopback-server.js';
import { CONFIG_GUIDE, COOKING, INSTALL_GUIDE, VIDEO_LISTS } from './fixtures.js';
import { aroundAnswerContract } from './around-answer-contract.js';
import { attachmentsContract } from './attachments-contract.js';
import { speechContract } from './speech-contract.js';
import type { ContractHarness, OpenHarness } from './harness.js';

const FIRST_PAGE = { page: 1, page_size: 1000 } as const;

/** Every session of a listing, whatever its age group. */
const allSessions = (list: SessionList) => [...list.today, ...list.last_week, ...list.older];

/** An HTML page linking to `links`. */
const linkPage = (title: string, links: readonly string[] = []) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</body></html>`;

const watchUrls = (ids: readonly string[]) => ids.map((id) => `https://www.youtube.com/watch?v=${id}`);
const [FROB_CHANNEL, QUIET_CHANNEL] = VIDEO_LISTS.channels;
const [TUTORIALS] = VIDEO_LISTS.playlists;

export function assistantContract(open: OpenHarness): void {
  let harness: ContractHarness;
  let assistant: Assistant;

  beforeEach(async () => {
    harness = await open();
    assistant = harness.assistant;
    await harness.createGuru('frob', 'Frobnicator');
  });

  afterEach(async () => {
    await harness.close();
  });

  async function addDocs() {
    const created = await assistant.createDataSources('frob', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration', content: CONFIG_GUIDE },
        { name: 'Pancakes', content: COOKING },
      ],
      labels: ['docs'],
    });
    await harness.whenIdle();
    return created;
  }

  /** What an unknown guru answers: over REST too, since the remote harness sends a valid key (of another guru). */
  function expectUnknownGuru(call: Promise<unknown>, notFound: { status: number; message: string }) {
    return expect(call).rejects.toMatchObject(notFound);
  }

  describe('data sources', () => {
    it('accepts text sources and processes them asynchronously', async () => {
      const created = await assistant.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
      expect(created).toEqual([{ type: 'Text', status: 'success', id: expect.any(Number), title: 'Install guide', content: INSTALL_GUIDE }]);
      const [before] = (await assistant.listDataSources('frob', FIRST_PAGE)).results;
      // Over HTTP the server may well have finished before the listing request arrives.
      if (harness.kind === 'local') expect(before?.status).toBe('NOT_PROCESSED');
      else expect(['NOT_PROCESSED', 'SUCCESS']).toContain(before?.status);
      await harness.whenIdle();
      const [after] = (await assistant.listDataSources('frob', FIRST_PAGE)).results;
      expect(after).toMatchObject({
        id: created[0]?.id,
        type: 'TEXT',
        title: 'Install guide',
        status: 'SUCCESS',
        error: '',
        private: false,
        reindex_count: 0,
      });
      expect(after).not.toHaveProperty('url');
    });

    it('lists each source with its labels: the type label first, then those given', async () => {
      await assistant.createDataSources('frob', { text_sources: [{ name: 'Runbook', content: 'Restart the zorblax nightly.' }], labels: ['ops', 'Night shift'] });
      await harness.whenIdle();
      const [listed] = (await assistant.listDataSources('frob', FIRST_PAGE)).results;
      expect(listed?.labels).toEqual(['Text', 'ops', 'Night shift']);
    });

    it('replaces the content of a source sent again under the same name', async () => {
      const [first] = await assistant.createDataSources('frob', { text_sources: [{ name: 'Notes', content: 'The zorblax runs nightly.' }] });
      await harness.whenIdle();
      const [second] = await assistant.createDataSources('frob', { text_sources: [{ name: 'Notes', content: 'The quuxinator runs hourly.' }] });
      await harness.whenIdle();
      expect(second?.id).toBe(first?.id);
      expect((await assistant.listDataSources('frob', { page: 1, page_size: 10 })).count).toBe(1);
      expect((await assistant.semanticSearch('frob', { question: 'zorblax' })).total_sources).toBe(0);
      expect((await assistant.semanticSearch('frob', { question: 'quuxinator' })).total_sources).toBe(1);
    });

    it('reads a text that is HTML as a web page is read: its words, not its markup', async () => {
      const page = '<!doctype html><html><head><title>Quickstart</title><script>track()</script></head>' +
        '<body><nav><a href="/">Home</a></nav><main><h1>Quickstart</h1><p>The zorblax listens on port 5000 once started.</p></main></body></html>';
      const [created] = await assistant.createDataSources('frob', { text_sources: [{ name: 'quickstart.html', content: page }] });
      await harness.whenIdle();
      expect(created?.content).toContain('The zorblax listens on port 5000 once started.');
      expect(created?.content).not.toMatch(/<\/?(?:html|head|body|main|p|script)\b|doctype|track\(\)/i);
      const answer = await assistant.ask('frob', { question: 'Which port does the zorblax listen on?', fetch_existing: false });
      expect(answer.content).toContain('port 5000');
      expect(answer.content).not.toMatch(/<\/?(?:html|body|main|p)\b|doctype/i);
    });

    it('answers exists for a text sent again unchanged, without reading it again', async () => {
      const text = { name: 'Notes', content: 'The zorblax runs nightly.' };
      const [first] = await assistant.createDataSources('frob', { text_sources: [text] });
      await harness.whenIdle();
      const [again] = await assistant.createDataSources('frob', { text_sources: [text] });
      expect(again).toMatchObject({ id: first?.id, status: 'exists' });
      const [listed] = (await assistant.listDataSources('frob', FIRST_PAGE)).results;
      expect(listed).toMatchObject({ id: first?.id, status: 'SUCCESS' });
    });

    it('fails a source with no text, telling why', async () => {
      await assistant.createDataSources('frob', { text_sources: [{ name: 'Blank', content: '   \n\n  ' }] });
      await harness.whenIdle();
      const [blank] = (await assistant.listDataSources('frob', { page: 1, page_size: 10 })).results;
      expect(blank).toMatchObject({ status: 'FAIL', error: 'The source has no text to index.' });
    });

    it('refuses more than 1,500 URLs of a kind, or a URL over 4096 characters, as a whole, naming the problem', async () => {
      const refusals = [
        { request: { website_urls: Array.from({ length: 1501 }, (_, i) => `https://example.com/${i}`) }, problem: 'website_urls must have at most 1500 items' },
        { request: { website_urls: [`https://example.com/${'a'.repeat(4096)}`] }, problem: 'website_urls[0] must be at most 4096 characters' },
      ];
      for (const { request, problem } of refusals) {
        await expect(assistant.createDataSources('frob', request)).rejects.toMatchObject({
          status: 400,
          field: 'msg',
          message: `Invalid request parameters: ${problem}`,
        });
      }
      expect(await harness.storedRows('data_sources')).toBe(0);
    });

    it('refuses a request with a bad URL as a whole, storing nothing', async () => {
      await expect(
        assistant.createDataSources('frob', { website_urls: ['ftp://example.com/x'], text_sources: [{ name: 'A', content: 'a' }] }),
      ).rejects.toMatchObject({ status: 400, message: 'Invalid request parameters', field: 'msg' });
      expect((await assistant.listDataSources('frob', FIRST_PAGE)).count).toBe(0);
    });

    it('adds web pages, and answers exists for a page already added', async () => {
      const site = await startLoopbackServer({
        '/faq': (_request, response) => {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          response.end('<html><head><title>FAQ</title></head><body><main><h1>FAQ</h1><p>Refunds take five working days.</p></main></body></html>');
        },
      });
      try {
        const [created] = await assistant.createDataSources('frob', { website_urls: [site.url('/faq')] });
        expect(created).toEqual({ type: 'Website', url: site.url('/faq'), status: 'success', id: expect.any(Number), title: null });
        await harness.whenIdle();
        const [listed] = (await assistant.listDataSources('frob', FIRST_PAGE)).results;
        expect(listed).toMatchObject({ type: 'WEBSITE', url: site.url('/faq'), title: 'FAQ', status: 'SUCCESS', error: '' });
        const [again] = await assistant.createDataSources('frob', { website_urls: [`${site.url('/faq')}#refunds`] });
        expect(again).toMatchObject({ status: 'exists', id: created!.id });
      } finally {
        await site.close();
      }
    });

    it('refuses ticket and wiki URLs while their integration is not set up', async () => {
      await expect(assistant.createDataSources('frob', { jira_urls: ['https://frob.atlassian.net/browse/FROB-1'] })).rejects.toMatchObject({
        status: 400,
        message: 'Jira integration is not set up for this guru',
        field: 'msg',
      });
    });

    it('reindexes sources by id, counting each reindex', async () => {
      const [created] = await assistant.createDataSources('frob', { text_sources: [{ name: 'Notes', content: 'The zorblax runs nightly.' }] });
      await harness.whenIdle();
      await expect(assistant.reindexDataSources('frob', { ids: [created!.id] })).resolves.toEqual({ msg: 'Reindexing 1 data source' });
      await harness.whenIdle();
      expect((await assistant.listDataSources('frob', FIRST_PAGE)).results[0]).toMatchObject({ status: 'SUCCESS', reindex_count: 1 });
      await expect(assistant.reindexDataSources('frob', { ids: [created!.id + 1000] })).rejects.toMatchObject({
        status: 400,
        message: 'Invalid request parameters',
      });
    });

    it('pages newest first', async () => {
      await assistant.createDataSources('frob', {
        text_sources: Array.from({ length: 5 }, (_, i) => ({ name: `doc ${i}`, content: `content ${i}` })),
      });
      const page1 = await assistant.listDataSources('frob', { page: 1, page_size: 2 });
      const page3 = await assistant.listDataSources('frob', { page: 3, page_size: 2 });
      expect(page1).toMatchObject({ count: 5, page: 1, page_size: 2 });
      expect(page1.results.map((s) => s.title)).toEqual(['doc 4', 'doc 3']);
      expect(page3).toMatchObject({ count: 5, page: 3, page_size: 2 });
      expect(page3.results.map((s) => s.title)).toEqual(['doc 0']);
      expect((await assistant.listDataSources('frob', { page: 4, page_size: 2 })).results).toEqual([]);
    });

    it('answers for an unknown guru with the operation\'s error', async () => {
      await expectUnknownGuru(assistant.listDataSources('nope', FIRST_PAGE), { status: 404, message: 'Guru type nope not found' });
      await expectUnknownGuru(assistant.createDataSources('nope', { text_sources: [{ name: 'a', content: 'a' }] }), {
        status: 404,
        message: 'Guru type nope not found',
      });
    });
  });

  describe('semantic search', () => {
    it('returns one entry per source, best first, in the spec shape', async () => {
      await addDocs();
      const result = await assistant.semanticSearch('frob', { question: 'How do I install frobnicator?' });
      expect(SemanticSearchResponse.parse(result)).toEqual(result);
      expect(result.sources[0]).toEqual({ title: 'Install guide', link: null, display_link: false, icon_url: '', labels: ['Text', 'docs'] });
      expect(result.total_sources).toBe(result.sources.length);
      expect(new Set(result.sources.map((s) => s.title)).size).toBe(result.sources.length);
      expect(result.sources.map((s) => s.title)).not.toContain('Pancakes');
    });

    it('filters by label, ignoring case', async () => {
      await addDocs();
      await assistant.createDataSources('frob', { text_sources: [{ name: 'Recipes', content: 'Frobnicator pancakes recipe.' }], labels: ['Kitchen'] });
      await harness.whenIdle();
      const kitchen = await assistant.semanticSearch('frob', { question: 'frobnicator', labels: ['kitchen'] });
      expect(kitchen.sources.map((s) => s.title)).toEqual(['Recipes']);
      const both = await assistant.semanticSearch('frob', { question: 'frobnicator', labels: ['KITCHEN', 'docs'] });
      expect(both.total_sources).toBe(3);
    });

    it('treats query syntax in user text as plain words', async () => {
      await addDocs();
      for (const question of ['"unbalanced', 'install AND NOT (', 'title:install*', 'NEAR(a b', '-- ;drop table chunks', '***']) {
        await expect(assistant.semanticSearch('frob', { question })).resolves.toHaveProperty('sources');
      }
      expect((await assistant.semanticSearch('frob', { question: 'install AND NOT (' })).sources[0]?.title).toBe('Install guide');
    });

    it('folds the case of labels in any script', async () => {
      await assistant.createDataSources('frob', { text_sources: [{ name: 'Umlaut', content: 'Frobnicator in German.' }], labels: ['Über'] });
      await harness.whenIdle();
      for (const label of ['über', 'ÜBER', 'Über']) {
        expect((await assistant.semanticSearch('frob', { question: 'frobnicator', labels: [label] })).sources.map((s) => s.title)).toEqual(['Umlaut']);
      }
    });

    it('ranks sources, so that one large source does not crowd out the others', async () => {
      const sections = Array.from({ length: 300 }, (_, i) => `## Part ${i}\n\nAlpha particles, part ${i}.`).join('\n\n');
      await assistant.createDataSources('frob', {
        text_sources: [
          { name: 'Big', content: `# Alpha handbook\n\n${sections}` },
          ...Array.from({ length: 12 }, (_, i) => ({ name: `small ${i}`, content: `A note on alpha number ${i}.` })),
        ],
      });
      await harness.whenIdle();
      expect((await assistant.semanticSearch('frob', { question: 'alpha' })).total_sources).toBe(10);
    });

    it('refuses an empty question with its own wording', async () => {
      await expect(assistant.semanticSearch('frob', { question: '  ' })).rejects.toMatchObject({ status: 400, message: 'Question is required' });
    });

    it('says what is wrong with a request that has a question, storing no search', async () => {
      const before = await harness.storedRows('searches');
      const refusals = [
        { request: { question: 'q', labels: 'docs' }, message: 'labels must be an array of strings' },
        { request: { question: 'q', external_user_id: 42 }, message: 'external_user_id must be a string' },
        { request: { question: 'word '.repeat(2001) }, message: 'question must be at most 10000 characters' },
      ];
      for (const { request, message } of refusals) {
        const call = assistant.semanticSearch('frob', request as unknown as SemanticSearchRequest);
        await expect(call).rejects.toMatchObject({ status: 400, field: 'error', message });
      }
      expect(await harness.storedRows('searches')).toBe(before);
    });

    it('refuses a 3.9 MB question before any search, storing nothing', async () => {
      const before = await harness.storedRows('searches');
      // The engine refuses it when parsing; over REST the body is refused while it is read, before that.
      const expected =
        harness.kind === 'local'
          ? { status: 400, message: 'question must be at most 10000 characters' }
          : { status: 413, message: 'Request body too large (limit 256 KiB)' };
      await expect(assistant.semanticSearch('frob', { question: 'x'.repeat(3_900_000) })).rejects.toMatchObject({ ...expected, field: 'error' });
      expect(await harness.storedRows('searches')).toBe(before);
    });

    it('caps results at ten sources', async () => {
      await assistant.createDataSources('frob', {
        text_sources: Array.from({ length: 15 }, (_, i) => ({ name: `widget ${i}`, content: `All about widgets, part ${i}.` })),
      });
      await harness.whenIdle();
      const result = await assistant.semanticSearch('frob', { question: 'widgets', external_user_id: 'u1' });
      expect(result.total_sources).toBe(10);
      expect(result.sources).toHaveLength(10);
    });

    it('answers for an unknown guru with its own wording', async () => {
      await expectUnknownGuru(assistant.semanticSearch('nope', { question: 'x' }), { status: 404, message: 'Guru not found' });
    });
  });

  describe('answers', () => {
    it('answers from the best passages with references and a trust score', async () => {
      await addDocs();
      const answer = await assistant.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false }, { origin: 'MCP' });
      expect(Answer.parse(answer)).toEqual(answer);
      expect(answer.content).toContain('npm install -g frobnicator');
      expect(answer.content).toContain('[1]');
      expect(answer.references[0]).toEqual({ link: '', icon: '', title: 'Install guide' });
      expect(answer.references.map((r) => r.title)).not.toContain('Pancakes');
      expect(answer.trust_score).toBeGreaterThanOrEqual(50);
      expect(answer.can_receive_feedback).toBe(true);
      expect(answer.question).toBe('How do I install Frobnicator?');
      expect(answer.question_url).toBe(`guru://frob/sessions/${answer.session_id}`);
      expect(answer.date_updated).toBe('2026-11-20');
    });

    it('answers in part when the question also names a topic the knowledge base lacks', async () => {
      await addDocs();
      const answer = await assistant.ask('frob', { question: 'How do I run frobnicator on kubernetes?', fetch_existing: false });
      expect(answer.references[0]?.title).toBe('Install guide');
      expect(answer.trust_score).toBeGreaterThan(0);
      expect(answer.trust_score).toBeLessThan(50);
      expect(answer.content).toMatch(/^The knowledge base covers this only in part/);
    });

    it('gives questions in any script readable, distinct slugs', async () => {
      const first = await assistant.ask('frob', { question: '如何退款', fetch_existing: false });
      const second = await assistant.ask('frob', { question: '如何退款', fetch_existing: false });
      expect(first.slug).toMatch(/^如何退款-[0-9a-f]{12}$/);
      expect(second.slug).not.toBe(first.slug);
    });

    it('refuses an empty question, naming the problem', async () => {
      await expect(assistant.ask('frob', { question: ' ', fetch_existing: false })).rejects.toMatchObject({
        status: 400,
        message: 'Question is required',
      });
    });

    it('quotes a code block whole', async () => {
      await addDocs();
      const answer = await assistant.ask('frob', { question: 'frob version verify installation', fetch_existing: false });
      const fence = answer.content.indexOf('```sh');
      expect(fence).toBeGreaterThan(-1);
      const block = answer.content.slice(fence, answer.content.indexOf('```', fence + 3) + 3);
      expect(block).toContain('npm install -g frobnicator');
      expect(block).toContain('frob --version');
    });

    it('says plainly when the knowledge base has nothing relevant', async () => {
      await addDocs();
      const answer = await assistant.ask('frob', { question: 'What is the capital of Mongolia?', fetch_existing: false });
      expect(answer.trust_score).toBe(0);
      expect(answer.references).toEqual([]);
      expect(answer.can_receive_feedback).toBe(false);
      expect(answer.content).toMatch(/could not find anything/);
    });

    it('streams the answer text in order, and stores the question once', async () => {
      await addDocs();
      const pieces: string[] = [];
      const answer = await assistant.ask(
        'frob',
        { question: 'Where does Frobnicator read its settings?', fetch_existing: false },
        { onText: (delta) => pieces.push(delta) },
      );
      expect(pieces.length).toBeGreaterThan(0);
      expect(pieces.join('')).toBe(answer.content);
      expect(answer.content).toContain('frob.toml');
      expect(answer.references[0]?.title).toBe('Configuration');
      // The remote adapter asks with stream: true, then fetches the stored answer: still one turn.
      expect((await assistant.getSession('frob', answer.session_id)).conversation.map((turn) => turn.slug)).toEqual([answer.slug]);
    });

    it('streams a follow-up within its session and end user', async () => {
      await addDocs();
      const first = await assistant.ask('frob', { question: 'How do I configure Frobnicator?', fetch_existing: false, external_user_id: 'u1' });
      let streamed = '';
      const second = await assistant.ask(
        'frob',
        { question: 'How do I configure Frobnicator?', session_id: first.session_id, external_user_id: 'u1', fetch_existing: false },
        { onText: (delta) => (streamed += delta) },
      );
      expect(streamed).toBe(second.content);
      expect(second.session_id).toBe(first.session_id);
      expect(second.slug).not.toBe(first.slug);
      const turns = (await assistant.getSession('frob', first.session_id)).conversation;
      expect(turns.map((turn) => turn.slug)).toEqual([first.slug, second.slug]);
    });

    it('stops when the caller aborts while the text streams', async () => {
      await addDocs();
      const controller = new AbortController();
      const ask = assistant.ask(
        'frob',
        { question: 'How do I install Frobnicator?', fetch_existing: false },
        { signal: controller.signal, onText: () => controller.abort() },
      );
      await expect(ask).rejects.toMatchObject({ name: 'AbortError' });
    });

    it('continues a session, using the previous question for a follow-up', async () => {
      await addDocs();
      const first = await assistant.ask('frob', { question: 'How do I configure Frobnicator?', fetch_existing: false, external_user_id: 'u1' });
      const second = await assistant.ask('frob', {
        question: 'What is the wibble level?',
        session_id: first.session_id,
        fetch_existing: false,
        external_user_id: 'u1',
      });
      expect(second.session_id).toBe(first.session_id);
      expect(second.references[0]?.title).toBe('Configuration');
      const vague = await assistant.ask('frob', { question: 'and why?', session_id: first.session_id, fetch_existing: false });
      expect(vague.references[0]?.title).toBe('Configuration');

      const conversation = await assistant.getSession('frob', first.session_id);
      expect(SessionConversation.parse(conversation)).toEqual(conversation);
      expect(conversation.binge_id).toBe(first.session_id);
      expect(conversation.conversation.map((turn) => turn.parent_slug)).toEqual([null, first.slug, second.slug]);
      expect(conversation.root_question_slug).toBe(first.slug);
      expect(conversation.conversation[0]).toMatchObject({
        slug: first.slug,
        user_question: 'How do I configure Frobnicator?',
        answer: first.content,
        trust_score: first.trust_score,
        user_vote: null,
      });
    });

    it("rejects another end user's session with S-902, and unknown sessions", async () => {
      await addDocs();
      const first = await assistant.ask('frob', { question: 'install', fetch_existing: false, external_user_id: 'alice' });
      await expect(
        assistant.ask('frob', { question: 'more', session_id: first.session_id, external_user_id: 'bob', fetch_existing: false }),
      ).rejects.toMatchObject({ status: 400, field: 'msg', message: 'External user ID mismatch for this session. Code: S-902' });
      await expect(assistant.ask('frob', { question: 'x', session_id: 'nope', fetch_existing: false })).rejects.toMatchObject({
        status: 400,
        message: 'Session nope not found',
      });
      expect((await assistant.getSession('frob', first.session_id)).conversation).toHaveLength(1);
    });

    it('returns the stored answer with fetch_existing instead of asking again', async () => {
      await addDocs();
      const first = await assistant.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
      const again = await assistant.ask('frob', { question: '  How do I install   Frobnicator? ', fetch_existing: true, session_id: first.session_id });
      expect(again).toEqual(first);
      expect((await assistant.getSession('frob', first.session_id)).conversation).toHaveLength(1);
    });

    it('answers for an unknown guru with the operation\'s error', async () => {
      await expectUnknownGuru(assistant.ask('nope', { question: 'hi', fetch_existing: false }), {
        status: 404,
        message: 'Guru type nope not found',
      });
    });
  });

  describe('sessions', () => {
    it('lists sessions grouped by age, with search and an end-user filter', async () => {
      await addDocs();
      harness.setClock(new Date('2026-10-01T10:00:00Z'));
      const old = await assistant.ask('frob', { question: 'pancakes batter', fetch_existing: false });
      harness.setClock(new Date('2026-11-17T10:00:00Z'));
      const lastWeek = await assistant.ask('frob', { question: 'configuration file', fetch_existing: false, external_user_id: 'u2' });
      harness.setClock(new Date('2026-11-20T08:00:00Z'));
      const today = await assistant.ask('frob', { question: 'install frobnicator', fetch_existing: false });
      harness.setClock(new Date('2026-11-20T12:00:00Z'));

      const list = await assistant.listSessions('frob', { page_num: 1, search_query: '' });
      expect(SessionList.parse(list)).toEqual(list);
      expect(list.today.map((s) => s.id)).toEqual([today.session_id]);
      expect(list.last_week.map((s) => s.id)).toEqual([lastWeek.session_id]);
      expect(list.older.map((s) => s.id)).toEqual([old.session_id]);
      expect(list.has_more).toBe(false);
      expect(list.today[0]).toMatchObject({
        guru_type_slug: 'frob',
        guru_type_name: 'Frobnicator',
        root_question_name: 'install frobnicator',
        root_question_slug: today.slug,
        root_question_link: today.question_url,
      });

      const searched = await assistant.listSessions('frob', { page_num: 1, search_query: 'PANCAKES' });
      expect(allSessions(searched).map((s) => s.id)).toEqual([old.session_id]);
      const literal = await assistant.listSessions('frob', { page_num: 1, search_query: '%' });
      expect(allSessions(literal)).toEqual([]);
      const byUser = await assistant.listSessions('frob', { page_num: 1, search_query: '', external_user_id: 'u2' });
      expect(allSessions(byUser).map((s) => s.id)).toEqual([lastWeek.session_id]);
    });

    it('pages with has_more', async () => {
      for (let i = 0; i < 21; i++) await assistant.ask('frob', { question: `question ${i}`, fetch_existing: false });
      const first = await assistant.listSessions('frob', { page_num: 1, search_query: '' });
      const second = await assistant.listSessions('frob', { page_num: 2, search_query: '' });
      expect(first.today).toHaveLength(20);
      expect(first.has_more).toBe(true);
      expect(second.today).toHaveLength(1);
      expect(second.has_more).toBe(false);
      expect(new Set([...first.today, ...second.today].map((s) => s.id)).size).toBe(21);
    });

    it('deletes a session once, then says it is already deleted', async () => {
      const answer = await assistant.ask('frob', { question: 'hello', fetch_existing: false });
      await expect(assistant.deleteSession('frob', answer.session_id)).resolves.toEqual({
        msg: 'Session deleted successfully',
        session_id: answer.session_id,
      });
      await expect(assistant.deleteSession('frob', answer.session_id)).rejects.toMatchObject({
        status: 400,
        message: 'Session is already deleted',
      });
      await expect(assistant.getSession('frob', answer.session_id)).rejects.toMatchObject({ status: 404, message: 'Binge not found' });
      expect(allSessions(await assistant.listSessions('frob', { page_num: 1, search_query: '' }))).toEqual([]);
    });

    it('says which session ids are missing or empty', async () => {
      await expect(assistant.deleteSession('frob', 'missing')).rejects.toMatchObject({ status: 404, message: 'Session not found' });
      await expect(assistant.getSession('frob', 'missing')).rejects.toMatchObject({ status: 404, message: 'Binge not found' });
      await expect(assistant.getSession('frob', ' ')).rejects.toMatchObject({ status: 400, message: 'Binge ID is required' });
      await expect(assistant.deleteSession('frob', '')).rejects.toMatchObject({ status: 400, message: 'Binge ID is required' });
    });

    it("keeps one guru's sessions from another", async () => {
      await harness.createGuru('other');
      const answer = await assistant.ask('frob', { question: 'hello', fetch_existing: false });
      await expect(assistant.getSession('other', answer.session_id)).rejects.toMatchObject({
        status: 403,
        message: "You don't have access to this binge",
      });
      await expect(assistant.deleteSession('other', answer.session_id)).rejects.toMatchObject({ status: 403, message: 'Forbidden' });
      await expect(assistant.ask('other', { question: 'x', session_id: answer.session_id, fetch_existing: false })).rejects.toMatchObject({
        status: 400,
        message: `Session ${answer.session_id} not found`,
      });
      expect(allSessions(await assistant.listSessions('other', { page_num: 1, search_query: '' }))).toEqual([]);
      expect((await assistant.getSession('frob', answer.session_id)).conversation).toHaveLength(1);
    });

    it('answers for an unknown guru with the operation\'s error', async () => {
      await expectUnknownGuru(assistant.listSessions('nope', { page_num: 1, search_query: '' }), {
        status: 404,
        message: 'Guru type nope not found',
      });
    });
  });
  aroundAnswerContract(() => harness);
  speechContract(() => harness);
  attachmentsContract(() => harness);

  describe('crawling', () => {
    let site: LoopbackServer;
    /** Responses of /held/ kept open: a crawl of it stays RUNNING until stopped. */
    const held: ServerResponse[] = [];

    beforeEach(async () => {
      const list: Route = (request, response) => {
        const number = Number(new URL(request.url ?? '/', site.origin).searchParams.get('page') ?? '1');
        respond(linkPage(`Changelog ${number}`, number < 3 ? [`/docs/changelog?page=${number + 1}`] : []))(request, response);
      };
      site = await startLoopbackServer({
        '/docs/': respond(linkPage('Docs', ['install', 'config/', 'changelog?page=1', '/blog/', '/docs/static/site.css', 'diagram.png', 'install#windows'])),
        '/docs/install': respond(linkPage('Install', ['/docs/', 'https://example.com/elsewhere'])),
        '/docs/config/': respond(linkPage('Config', ['../install', 'tuning'])),
        '/docs/config/tuning': respond(linkPage('Tuning')),
        '/docs/changelog': list,
        '/blog/': respond(linkPage('Blog', ['/docs/secret-from-blog'])),
        '/held/': (_request, response) => {
          held.push(response);
        },
      });
    });

    afterEach(async () => {
      for (const response of held.splice(0)) response.destroy();
      await site.close();
    });

    /** The discovered URLs as paths, sorted: the crawl's order is breadth-first, not part of the contract. */
    const pathsOf = (crawl: Crawl) => crawl.discovered_urls.map((url) => url.slice(site.origin.length)).sort();
    const finished = (crawl: Crawl) => waitForCrawl(assistant, 'frob', crawl.id, { intervalMs: 20 });

    it('starts RUNNING with no URLs, then COMPLETES with the HTML pages under the start URL, query strings stripped', async () => {
      const started = await assistant.startCrawl('frob', { url: site.url('/docs/'), ignore_query_params: true });
      expect(Crawl.parse(started)).toEqual(started);
      expect(started).toEqual({
        id: expect.any(Number),
        url: site.url('/docs/'),
        status: 'RUNNING',
        guru_type: 'frob',
        discovered_urls: [],
        start_time: expect.any(String),
        end_time: null,
        link_limit: 1500,
        ignore_query_params: true,
      });
      const done = await finished(started);
      expect(done).toMatchObject({ id: started.id, status: 'COMPLETED', start_time: started.start_time, end_time: expect.any(String) });
      expect(done).not.toHaveProperty('error_message');
      expect(pathsOf(done)).toEqual(['/docs/', '/docs/changelog', '/docs/config/', '/docs/config/tuning', '/docs/install']);
      expect(await assistant.crawlStatus('frob', started.id)).toEqual(done);
    });

    it('keeps each paginated page when ignore_query_params is false', async () => {
      const started = await assistant.startCrawl('frob', { url: site.url('/docs/'), ignore_query_params: false });
      expect(started.ignore_query_params).toBe(false);
      const done = await finished(started);
      expect(done.status).toBe('COMPLETED');
      expect(pathsOf(done)).toEqual([
        '/docs/',
        '/docs/changelog?page=1',
        '/docs/changelog?page=2',
        '/docs/changelog?page=3',
        '/docs/config/',
        '/docs/config/tuning',
        '/docs/install',
      ]);
    });

    it('refuses a second crawl of the guru while one runs, with DESIGN.md\'s message', async () => {
      const running = await assistant.startCrawl('frob', { url: site.url('/held/'), ignore_query_params: true });
      await expect(assistant.startCrawl('frob', { url: site.url('/docs/'), ignore_query_params: true })).rejects.toMatchObject({
        status: 400,
        field: 'msg',
        message: 'A crawl is already running for this guru. Please wait for it to complete or stop it.',
      });
      expect(await assistant.crawlStatus('frob', running.id)).toMatchObject({ status: 'RUNNING', discovered_urls: [] });
      await assistant.stopCrawl('frob', running.id);
    });

    it('stops a running crawl: STOPPED with its end time, and a new crawl may start', async () => {
      const running = await assistant.startCrawl('frob', { url: site.url('/held/'), ignore_query_params: true });
      const stopped = await assistant.stopCrawl('frob', running.id);
      expect(Crawl.parse(stopped)).toEqual(stopped);
      expect(stopped).toMatchObject({ id: running.id, status: 'STOPPED', url: site.url('/held/'), start_time: running.start_time, end_time: expect.any(String) });
      expect(await assistant.crawlStatus('frob', running.id)).toEqual(stopped);
      expect(await assistant.stopCrawl('frob', running.id)).toEqual(stopped);
      const next = await assistant.startCrawl('frob', { url: site.url('/docs/install'), ignore_query_params: true });
      expect((await finished(next)).status).toBe('COMPLETED');
    });

    it('answers "Crawl not found" for an unknown id and for the crawl of another guru', async () => {
      await expect(assistant.crawlStatus('frob', 987654)).rejects.toMatchObject({ status: 404, field: 'msg', message: 'Crawl not found' });
      await expect(assistant.stopCrawl('frob', 987654)).rejects.toMatchObject({ status: 404, field: 'msg', message: 'Crawl not found' });
      const mine = await finished(await assistant.startCrawl('frob', { url: site.url('/docs/install'), ignore_query_params: true }));
      await harness.createGuru('other');
      await expect(assistant.crawlStatus('other', mine.id)).rejects.toMatchObject({ status: 404, message: 'Crawl not found' });
      await expect(assistant.stopCrawl('other', mine.id)).rejects.toMatchObject({ status: 404, message: 'Crawl not found' });
    });

    it('answers a crawl id that is no whole number as its transport sees it', async () => {
      // The port takes a number, and the engine simply has no crawl 1.5. Over REST the id is a path
      // segment, and "1.5" there is no crawl id at all: the status endpoint's "Invalid request".
      const expected = harness.kind === 'remote' ? { status: 400, message: 'Invalid request' } : { status: 404, message: 'Crawl not found' };
      await expect(assistant.crawlStatus('frob', 1.5)).rejects.toMatchObject(expected);
    });

    it.each(['not a url', 'ftp://example.com/docs/', '/docs/', ''])('refuses %j with "Invalid URL format", starting nothing', async (url) => {
      await expect(assistant.startCrawl('frob', { url, ignore_query_params: true })).rejects.toMatchObject({
        status: 400,
        field: 'msg',
        message: 'Invalid URL format',
      });
      // Nothing runs: a crawl can start.
      const next = await assistant.startCrawl('frob', { url: site.url('/docs/install'), ignore_query_params: true });
      expect((await finished(next)).status).toBe('COMPLETED');
    });

    it('refuses a start URL over 4096 characters, storing no crawl', async () => {
      const before = await harness.storedRows('crawls');
      await expect(assistant.startCrawl('frob', { url: site.url(`/docs/${'a'.repeat(4096)}`), ignore_query_params: true })).rejects.toMatchObject({
        status: 400,
        field: 'msg',
        message: 'url must be at most 4096 characters',
      });
      expect(await harness.storedRows('crawls')).toBe(before);
    });

    it("answers for an unknown guru with the operation's error", async () => {
      await expectUnknownGuru(assistant.startCrawl('nope', { url: site.url('/docs/'), ignore_query_params: true }), {
        status: 404,
        message: 'Guru type nope not found',
      });
      await expectUnknownGuru(assistant.crawlStatus('nope', 1), { status: 404, message: 'Guru type nope not found' });
    });
  });

  describe('video lists', () => {
    it('lists every upload of a channel named by @handle, through every page of the Data API', async () => {
      const imported = await assistant.importChannel({ url: `https://www.youtube.com/@${FROB_CHANNEL.handle}` });
      expect(ChannelImport.parse(imported)).toEqual(imported);
      expect(imported).toEqual({
        channel_identifier: FROB_CHANNEL.handle,
        identifier_type: 'username',
        video_count: FROB_CHANNEL.videoIds.length,
        videos: watchUrls(FROB_CHANNEL.videoIds),
      });
    });

    it('lists a channel named by its id, and a channel without uploads as empty', async () => {
      await expect(assistant.importChannel({ url: `https://www.youtube.com/channel/${FROB_CHANNEL.id}` })).resolves.toEqual({
        channel_identifier: FROB_CHANNEL.id,
        identifier_type: 'channel_id',
        video_count: FROB_CHANNEL.videoIds.length,
        videos: watchUrls(FROB_CHANNEL.videoIds),
      });
      await expect(assistant.importChannel({ url: `youtube.com/@${QUIET_CHANNEL.handle}` })).resolves.toEqual({
        channel_identifier: QUIET_CHANNEL.handle,
        identifier_type: 'username',
        video_count: 0,
        videos: [],
      });
    });

    it('lists the videos of a playlist', async () => {
      const imported = await assistant.importPlaylist({ url: `https://www.youtube.com/watch?v=${TUTORIALS.videoIds[1]}&list=${TUTORIALS.id}` });
      expect(PlaylistImport.parse(imported)).toEqual(imported);
      expect(imported).toEqual({ playlist_id: TUTORIALS.id, video_count: TUTORIALS.videoIds.length, videos: watchUrls(TUTORIALS.videoIds) });
    });

    it('answers 404 for a channel or playlist YouTube does not know', async () => {
      await expect(assistant.importChannel({ url: 'https://www.youtube.com/@nobody-at-all' })).rejects.toMatchObject({
        status: 404,
        field: 'msg',
        message: 'Channel not found',
      });
      await expect(assistant.importPlaylist({ url: 'https://www.youtube.com/playlist?list=PLnothing00000000000000000000000' })).rejects.toMatchObject({
        status: 404,
        field: 'msg',
        message: 'Playlist not found',
      });
    });

    it.each([
      ['channel', ''],
      ['channel', 'https://example.com/@Frobnicator'],
      ['channel', `https://www.youtube.com/playlist?list=${TUTORIALS.id}`],
      ['playlist', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
      ['playlist', `https://www.youtube.com/@${FROB_CHANNEL.handle}`],
    ] as const)('refuses a malformed %s URL %j with "URL is required", asking YouTube nothing', async (kind, url) => {
      const call = kind === 'channel' ? assistant.importChannel({ url }) : assistant.importPlaylist({ url });
      await expect(call).rejects.toMatchObject({ status: 400, field: 'msg', message: 'URL is required' });
      expect(harness.youtubeDataApi.server.requests).toEqual([]);
    });

    it('answers with the engine\'s error when no YouTube Data API key is configured', async () => {
      const keyless = await open({ withoutYouTubeApiKey: true });
      try {
        await keyless.createGuru('frob');
        const expected = {
          status: 503,
          field: 'msg',
          message:
            'No YouTube Data API key is configured; set GURU_YOUTUBE_API_KEY to an API key of a Google Cloud project with the YouTube Data API v3 enabled',
        };
        await expect(keyless.assistant.importChannel({ url: `https://www.youtube.com/@${FROB_CHANNEL.handle}` })).rejects.toMatchObject(expected);
        await expect(keyless.assistant.importPlaylist({ url: `https://www.youtube.com/playlist?list=${TUTORIALS.id}` })).rejects.toMatchObject(expected);
        expect(keyless.youtubeDataApi.server.requests).toEqual([]);
      } finally {
        await keyless.close();
      }
    });
  });
}
