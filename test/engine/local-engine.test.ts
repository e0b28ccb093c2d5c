import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GuruError } from '../../src/core/errors.js';
import { Answer, SemanticSearchResponse, SessionConversation, SessionList } from '../../src/core/schemas.js';
import { LocalEngine } from '../../src/engine/local-engine.js';

const INSTALL_GUIDE = `# Installing Frobnicator

## Requirements

Frobnicator needs Node.js 20 or newer and a C compiler for its native parts.

## Installation

Run the installer from a terminal:

\`\`\`sh
npm install -g frobnicator

# verify the installation
frob --version
\`\`\`

The installer places the \`frob\` command on your PATH.
`;

const CONFIG_GUIDE = `# Configuring Frobnicator

## The configuration file

Frobnicator reads its settings from frob.toml in the project root. The wibble level sets how aggressively
frobnication happens; it defaults to 3.

## Environment variables

FROB_HOME overrides where caches are kept.
`;

const COOKING = `# Pancakes

Mix flour, eggs and milk into a smooth batter, then fry thin pancakes in butter.`;

describe('LocalEngine', () => {
  let dir: string;
  let now: Date;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-engine-'));
    now = new Date('2026-11-20T12:00:00Z');
    engine = LocalEngine.open({ dataDir: dir, clock: () => now });
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator' });
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function addDocs() {
    const created = await engine.createDataSources('frob', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration', content: CONFIG_GUIDE },
        { name: 'Pancakes', content: COOKING },
      ],
      labels: ['docs'],
    });
    await engine.whenIdle();
    return created;
  }

  describe('gurus and keys', () => {
    it('stores keys only as hashes and resolves them to their guru', async () => {
      const created = await engine.createGuru({ slug: 'other' });
      expect(created).toEqual({ slug: 'other', name: 'other', api_key: expect.stringMatching(/^guru_[A-Za-z0-9_-]{43}$/) });
      expect(await engine.authenticate(created.api_key)).toBe('other');
      expect(await engine.authenticate(`${created.api_key}x`)).toBeUndefined();
      const extra = await engine.createApiKey('other');
      expect(extra.api_key).not.toBe(created.api_key);
      expect(await engine.authenticate(extra.api_key)).toBe('other');

      const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
      const dump = JSON.stringify(db.prepare('SELECT * FROM api_keys').all());
      db.close();
      expect(dump).not.toContain(created.api_key);
      expect(dump).not.toContain(extra.api_key);
    });

    it('refuses a taken slug and lists gurus', async () => {
      await expect(engine.createGuru({ slug: 'frob' })).rejects.toMatchObject({ status: 409 });
      expect((await engine.listGurus()).map((g) => g.slug)).toEqual(['frob']);
      await expect(engine.createApiKey('nope')).rejects.toBeInstanceOf(GuruError);
      for (const slug of ['Bad Slug', '-x', 'a--', '', 'x'.repeat(65)]) {
        await expect(engine.createGuru({ slug })).rejects.toMatchObject({ status: 400 });
      }
      expect((await engine.listGurus()).map((g) => g.slug)).toEqual(['frob']);
    });
  });

  describe('text data sources', () => {
    it('creates sources that are processed asynchronously', async () => {
      const created = await engine.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
      expect(created).toEqual([{ type: 'Text', status: 'success', id: expect.any(Number), title: 'Install guide', content: INSTALL_GUIDE }]);
      const before = await engine.listDataSources('frob', { page: 1, page_size: 1000 });
      expect(before.results[0]?.status).toBe('NOT_PROCESSED');
      await engine.whenIdle();
      const after = await engine.listDataSources('frob', { page: 1, page_size: 1000 });
      expect(after.results[0]).toMatchObject({ type: 'TEXT', title: 'Install guide', status: 'SUCCESS', error: '', private: false, reindex_count: 0 });
      expect(after.results[0]).not.toHaveProperty('url');
    });

    it('replaces the content of a source sent again under the same name', async () => {
      const [first] = await engine.createDataSources('frob', { text_sources: [{ name: 'Notes', content: 'The zorblax runs nightly.' }] });
      await engine.whenIdle();
      const [second] = await engine.createDataSources('frob', { text_sources: [{ name: 'Notes', content: 'The quuxinator runs hourly.' }] });
      await engine.whenIdle();
      expect(second?.id).toBe(first?.id);
      expect((await engine.listDataSources('frob', { page: 1, page_size: 10 })).count).toBe(1);
      expect((await engine.semanticSearch('frob', { question: 'zorblax' })).total_sources).toBe(0);
      expect((await engine.semanticSearch('frob', { question: 'quuxinator' })).total_sources).toBe(1);
    });

    it('fails a source with no text, telling why', async () => {
      await engine.createDataSources('frob', { text_sources: [{ name: 'Blank', content: '   \n\n  ' }] });
      await engine.whenIdle();
      const [blank] = (await engine.listDataSources('frob', { page: 1, page_size: 10 })).results;
      expect(blank).toMatchObject({ status: 'FAIL', error: 'The source has no text to index.' });
    });

    it('rejects URL kinds it cannot ingest yet, storing nothing', async () => {
      await expect(
        engine.createDataSources('frob', { website_urls: ['https://example.com'], text_sources: [{ name: 'A', content: 'a' }] }),
      ).rejects.toMatchObject({ status: 400, message: 'Invalid request parameters' });
      expect((await engine.listDataSources('frob', { page: 1, page_size: 10 })).count).toBe(0);
    });

    it('pages newest first', async () => {
      await engine.createDataSources('frob', {
        text_sources: Array.from({ length: 5 }, (_, i) => ({ name: `doc ${i}`, content: `content ${i}` })),
      });
      const page1 = await engine.listDataSources('frob', { page: 1, page_size: 2 });
      const page3 = await engine.listDataSources('frob', { page: 3, page_size: 2 });
      expect(page1.count).toBe(5);
      expect(page1.results.map((s) => s.title)).toEqual(['doc 4', 'doc 3']);
      expect(page3.results.map((s) => s.title)).toEqual(['doc 0']);
      expect((await engine.listDataSources('frob', { page: 4, page_size: 2 })).results).toEqual([]);
    });

    it('resumes processing left unfinished by a stopped process', async () => {
      await engine.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
      await engine.close(); // closed before the worker ran
      engine = LocalEngine.open({ dataDir: dir, clock: () => now });
      await engine.whenIdle();
      const [source] = (await engine.listDataSources('frob', { page: 1, page_size: 10 })).results;
      expect(source?.status).toBe('SUCCESS');
    });
  });

  describe('semantic search', () => {
    it('returns one entry per source, best first, in the spec shape', async () => {
      await addDocs();
      const result = await engine.semanticSearch('frob', { question: 'How do I install frobnicator?' });
      expect(SemanticSearchResponse.parse(result)).toEqual(result);
      expect(result.sources[0]).toEqual({ title: 'Install guide', link: null, display_link: false, icon_url: '', labels: ['Text', 'docs'] });
      expect(result.total_sources).toBe(result.sources.length);
      expect(new Set(result.sources.map((s) => s.title)).size).toBe(result.sources.length);
      expect(result.sources.map((s) => s.title)).not.toContain('Pancakes');
    });

    it('filters by label, ignoring case', async () => {
      await addDocs();
      await engine.createDataSources('frob', { text_sources: [{ name: 'Recipes', content: 'Frobnicator pancakes recipe.' }], labels: ['Kitchen'] });
      await engine.whenIdle();
      const kitchen = await engine.semanticSearch('frob', { question: 'frobnicator', labels: ['kitchen'] });
      expect(kitchen.sources.map((s) => s.title)).toEqual(['Recipes']);
      const both = await engine.semanticSearch('frob', { question: 'frobnicator', labels: ['KITCHEN', 'docs'] });
      expect(both.total_sources).toBe(3);
    });

    it('treats query syntax in user text as plain words', async () => {
      await addDocs();
      for (const question of ['"unbalanced', 'install AND NOT (', 'title:install*', 'NEAR(a b', '-- ;drop table chunks', '***']) {
        await expect(engine.semanticSearch('frob', { question })).resolves.toHaveProperty('sources');
      }
      expect((await engine.semanticSearch('frob', { question: 'install AND NOT (' })).sources[0]?.title).toBe('Install guide');
    });

    it('caps results at ten sources', async () => {
      await engine.createDataSources('frob', {
        text_sources: Array.from({ length: 15 }, (_, i) => ({ name: `widget ${i}`, content: `All about widgets, part ${i}.` })),
      });
      await engine.whenIdle();
      const result = await engine.semanticSearch('frob', { question: 'widgets' });
      expect(result.total_sources).toBe(10);
    });
  });

  describe('answers', () => {
    it('answers from the best passages with references and a trust score', async () => {
      await addDocs();
      const answer = await engine.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false }, { origin: 'MCP' });
      expect(Answer.parse(answer)).toEqual(answer);
      expect(answer.content).toContain('npm install -g frobnicator');
      expect(answer.content).toContain('[1]');
      expect(answer.references[0]).toEqual({ link: '', icon: '', title: 'Install guide' });
      expect(answer.references.map((r) => r.title)).not.toContain('Pancakes');
      expect(answer.trust_score).toBeGreaterThanOrEqual(50);
      expect(answer.can_receive_feedback).toBe(true);
      expect(answer.question_url).toBe(`guru://frob/sessions/${answer.session_id}`);
      expect(answer.date_updated).toBe('2026-11-20');
    });

    it('answers in part when the question also names a topic the knowledge base lacks', async () => {
      await addDocs();
      const answer = await engine.ask('frob', { question: 'How do I run frobnicator on kubernetes?', fetch_existing: false });
      expect(answer.references[0]?.title).toBe('Install guide');
      expect(answer.trust_score).toBeGreaterThan(0);
      expect(answer.trust_score).toBeLessThan(50);
      expect(answer.content).toMatch(/^The knowledge base covers this only in part/);
    });

    it('quotes a code block whole', async () => {
      await addDocs();
      const answer = await engine.ask('frob', { question: 'frob version verify installation', fetch_existing: false });
      const fence = answer.content.indexOf('```sh');
      expect(fence).toBeGreaterThan(-1);
      const block = answer.content.slice(fence, answer.content.indexOf('```', fence + 3) + 3);
      expect(block).toContain('npm install -g frobnicator');
      expect(block).toContain('frob --version');
    });

    it('says plainly when the knowledge base has nothing relevant', async () => {
      await addDocs();
      const answer = await engine.ask('frob', { question: 'What is the capital of Mongolia?', fetch_existing: false });
      expect(answer.trust_score).toBe(0);
      expect(answer.references).toEqual([]);
      expect(answer.can_receive_feedback).toBe(false);
      expect(answer.content).toMatch(/could not find anything/);
    });

    it('streams the answer text in order', async () => {
      await addDocs();
      const pieces: string[] = [];
      const stages: string[] = [];
      const answer = await engine.ask(
        'frob',
        { question: 'Where does Frobnicator read its settings?', fetch_existing: false },
        { onText: (delta) => pieces.push(delta), onStage: (line) => stages.push(line) },
      );
      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces.join('')).toBe(answer.content);
      expect(stages).toEqual(['Searching the knowledge base', 'Writing the answer']);
    });

    it('stops streaming when the caller aborts', async () => {
      await addDocs();
      const controller = new AbortController();
      const ask = engine.ask(
        'frob',
        { question: 'How do I install Frobnicator?', fetch_existing: false },
        { signal: controller.signal, onText: () => controller.abort() },
      );
      await expect(ask).rejects.toThrow();
      expect((await engine.listSessions('frob', { page_num: 1, search_query: '' })).today).toEqual([]);
    });

    it('continues a session, using the previous question for a follow-up', async () => {
      await addDocs();
      const first = await engine.ask('frob', { question: 'How do I configure Frobnicator?', fetch_existing: false, external_user_id: 'u1' });
      const second = await engine.ask('frob', {
        question: 'What is the wibble level?',
        session_id: first.session_id,
        fetch_existing: false,
        external_user_id: 'u1',
      });
      expect(second.session_id).toBe(first.session_id);
      expect(second.references[0]?.title).toBe('Configuration');
      const vague = await engine.ask('frob', { question: 'and why?', session_id: first.session_id, fetch_existing: false });
      expect(vague.references[0]?.title).toBe('Configuration');

      const conversation = await engine.getSession('frob', first.session_id);
      expect(SessionConversation.parse(conversation)).toEqual(conversation);
      expect(conversation.conversation.map((turn) => turn.parent_slug)).toEqual([null, first.slug, second.slug]);
      expect(conversation.root_question_slug).toBe(first.slug);
      expect(conversation.conversation[0]).toMatchObject({ user_question: 'How do I configure Frobnicator?', source: 'API', user_vote: null });
    });

    it("rejects another end user's session with S-902 and unknown sessions", async () => {
      await addDocs();
      const first = await engine.ask('frob', { question: 'install', fetch_existing: false, external_user_id: 'alice' });
      await expect(
        engine.ask('frob', { question: 'more', session_id: first.session_id, external_user_id: 'bob', fetch_existing: false }),
      ).rejects.toMatchObject({ status: 400, message: 'External user ID mismatch for this session. Code: S-902' });
      await expect(engine.ask('frob', { question: 'x', session_id: 'nope', fetch_existing: false })).rejects.toMatchObject({ status: 400 });
      expect((await engine.getSession('frob', first.session_id)).conversation).toHaveLength(1);
    });

    it('returns the stored answer with fetch_existing instead of asking again', async () => {
      await addDocs();
      const first = await engine.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
      const again = await engine.ask('frob', { question: '  How do I install   Frobnicator? ', fetch_existing: true, session_id: first.session_id });
      expect(again).toEqual(first);
      expect((await engine.getSession('frob', first.session_id)).conversation).toHaveLength(1);
    });

    it('refuses attachments it cannot read, storing nothing', async () => {
      await expect(
        engine.ask('frob', { question: 'see log', fetch_existing: false, log_files: [{ name: 'a.log', data: 'boom' }] }),
      ).rejects.toMatchObject({ status: 400 });
      expect((await engine.listSessions('frob', { page_num: 1, search_query: '' })).today).toEqual([]);
    });

    it('answers "not found" for an unknown guru', async () => {
      await expect(engine.ask('nope', { question: 'hi', fetch_existing: false })).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('sessions', () => {
    it('lists sessions grouped by age with paging and search', async () => {
      await addDocs();
      const at = (iso: string) => {
        now = new Date(iso);
      };
      at('2026-10-01T10:00:00Z');
      const old = await engine.ask('frob', { question: 'pancakes batter', fetch_existing: false });
      at('2026-11-17T10:00:00Z');
      const lastWeek = await engine.ask('frob', { question: 'configuration file', fetch_existing: false, external_user_id: 'u2' });
      at('2026-11-20T08:00:00Z');
      const today = await engine.ask('frob', { question: 'install frobnicator', fetch_existing: false });
      at('2026-11-20T12:00:00Z');

      const list = await engine.listSessions('frob', { page_num: 1, search_query: '' });
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

      const searched = await engine.listSessions('frob', { page_num: 1, search_query: 'PANCAKES' });
      expect([...searched.today, ...searched.last_week, ...searched.older].map((s) => s.id)).toEqual([old.session_id]);
      const literal = await engine.listSessions('frob', { page_num: 1, search_query: '%' });
      expect([...literal.today, ...literal.last_week, ...literal.older]).toEqual([]);
      const byUser = await engine.listSessions('frob', { page_num: 1, search_query: '', external_user_id: 'u2' });
      expect(byUser.last_week.map((s) => s.id)).toEqual([lastWeek.session_id]);
      expect(byUser.today).toEqual([]);
    });

    it('pages with has_more', async () => {
      for (let i = 0; i < 21; i++) await engine.ask('frob', { question: `question ${i}`, fetch_existing: false });
      const first = await engine.listSessions('frob', { page_num: 1, search_query: '' });
      const second = await engine.listSessions('frob', { page_num: 2, search_query: '' });
      expect(first.today).toHaveLength(20);
      expect(first.has_more).toBe(true);
      expect(second.today).toHaveLength(1);
      expect(second.has_more).toBe(false);
    });

    it('deletes a session once, then says it is already deleted', async () => {
      const answer = await engine.ask('frob', { question: 'hello', fetch_existing: false });
      await expect(engine.deleteSession('frob', answer.session_id)).resolves.toEqual({
        msg: 'Session deleted successfully',
        session_id: answer.session_id,
      });
      await expect(engine.deleteSession('frob', answer.session_id)).rejects.toMatchObject({ message: 'Session is already deleted' });
      await expect(engine.getSession('frob', answer.session_id)).rejects.toMatchObject({ status: 404, message: 'Binge not found' });
      await expect(engine.deleteSession('frob', 'missing')).rejects.toMatchObject({ status: 404, message: 'Session not found' });
      const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
      expect(db.prepare('SELECT count(*) AS n FROM questions').get()).toEqual({ n: 0 });
      db.close();
    });

    it("keeps one guru's sessions from another", async () => {
      await engine.createGuru({ slug: 'other' });
      const answer = await engine.ask('frob', { question: 'hello', fetch_existing: false });
      await expect(engine.getSession('other', answer.session_id)).rejects.toMatchObject({
        status: 403,
        message: "You don't have access to this binge",
      });
      await expect(engine.deleteSession('other', answer.session_id)).rejects.toMatchObject({ status: 403, message: 'Forbidden' });
      await expect(engine.ask('other', { question: 'x', session_id: answer.session_id, fetch_existing: false })).rejects.toMatchObject({
        status: 400,
      });
      expect((await engine.listSessions('other', { page_num: 1, search_query: '' })).today).toEqual([]);
    });
  });
});

describe('database', () => {
  it('opens one data directory from several engines at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-shared-'));
    const engines = Array.from({ length: 4 }, () => LocalEngine.open({ dataDir: dir }));
    try {
      await engines[0]!.createGuru({ slug: 'shared' });
      await engines[1]!.createDataSources('shared', { text_sources: [{ name: 'n', content: 'The shared zebu grazes.' }] });
      await Promise.all(engines.map((engine) => engine.whenIdle()));
      for (const engine of engines) {
        expect((await engine.semanticSearch('shared', { question: 'zebu' })).total_sources).toBe(1);
      }
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a database written by a newer version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-newer-'));
    try {
      await LocalEngine.open({ dataDir: dir }).close();
      const db = new Database(join(dir, 'guru.sqlite'));
      db.pragma('user_version = 999');
      db.close();
      expect(() => LocalEngine.open({ dataDir: dir })).toThrow(/newer guru-mcp/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
