/**
 * The end-user operations of the Assistant port, held against every
 * implementation (the local engine, and the remote adapter over our REST server):
 * the paged data bundle, profiles, erasing, and gurus kept apart.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Assistant } from '../../src/core/assistant.js';
import { EndUserData, type EndUserDataQuery } from '../../src/core/schemas.js';
import { CONFIG_GUIDE, INSTALL_GUIDE } from './fixtures.js';
import type { ContractHarness, OpenHarness } from './harness.js';

const USER = '5f0c6a52-0d4e-4b8e-9a57-2b1f3c0f7e11';
const FIRST = { limit: 100, offset: 0 } as const;

export function endUsersContract(open: OpenHarness): void {
  let harness: ContractHarness;
  let assistant: Assistant;

  beforeEach(async () => {
    harness = await open();
    assistant = harness.assistant;
    for (const slug of ['frob', 'quux']) {
      await harness.createGuru(slug);
      await assistant.createDataSources(slug, {
        text_sources: [
          { name: 'Install guide', content: INSTALL_GUIDE },
          { name: 'Configuration', content: CONFIG_GUIDE },
        ],
      });
    }
    await harness.whenIdle();
  });

  afterEach(async () => {
    await harness.close();
  });

  /** Two answered questions in one session, a declined one in another, and two searches. */
  async function history(guru: string, externalUserId: string) {
    const first = await assistant.ask(guru, {
      fetch_existing: false,
      question: 'How do I install frobnicator?',
      external_user_id: externalUserId,
      log_files: [{ name: 'frob.log', data: 'ERROR frob: cannot bind port 8080' }],
    });
    await assistant.ask(guru, { fetch_existing: false, question: 'Which file holds the wibble level?', session_id: first.session_id, external_user_id: externalUserId });
    const declined = await assistant.ask(guru, { fetch_existing: false, question: 'Best pancake recipe?', external_user_id: externalUserId });
    await assistant.semanticSearch(guru, { question: 'installer', labels: ['Text'], external_user_id: externalUserId });
    await assistant.semanticSearch(guru, { question: 'wibble', external_user_id: externalUserId });
    return { first, declined };
  }

  /** Every record of each paged collection, read page by page until nothing more is said to follow. */
  async function everyPage(guru: string, externalUserId: string, limit: number) {
    const all = { questions: [] as unknown[], rejected_questions: [] as unknown[], conversations: [] as unknown[], searches: [] as unknown[] };
    const pages: EndUserData[] = [];
    for (let offset = 0; ; offset += limit) {
      const query: EndUserDataQuery = { limit, offset };
      const page = await assistant.getEndUserData(guru, externalUserId, query);
      pages.push(page);
      for (const key of Object.keys(all) as (keyof typeof all)[]) all[key].push(...page.data[key]);
      if (!Object.values(page.data.page.has_more).some(Boolean)) return { all, pages };
    }
  }

  describe('end-user data', () => {
    it("returns the end user's questions, declined questions, conversations and searches in the spec's shape", async () => {
      const { first, declined } = await history('frob', USER);
      const data = await assistant.getEndUserData('frob', USER, FIRST);
      expect(EndUserData.parse(data)).toEqual(data);
      expect(data.external_user_id).toBe(USER);
      expect(data.data.questions.map((q) => [q.question, q.source])).toEqual([
        ['How do I install frobnicator?', 'API'],
        ['Which file holds the wibble level?', 'API'],
      ]);
      expect(data.data.questions[0]).toMatchObject({ slug: first.slug, user_question: 'How do I install frobnicator?', content: first.content });
      expect(data.data.rejected_questions).toEqual([
        {
          slug: declined.slug,
          question: 'Best pancake recipe?',
          user_question: 'Best pancake recipe?',
          date_created: expect.any(String),
          reason: 'The knowledge base holds nothing that answers this question.',
        },
      ]);
      expect(data.data.conversations.map((c) => c.id)).toEqual([first.session_id, declined.session_id]);
      expect(data.data.searches).toEqual([
        { query: 'installer', selected_labels: ['Text'], date_created: expect.any(String) },
        { query: 'wibble', selected_labels: [], date_created: expect.any(String) },
      ]);
      expect(data.data.profile).toEqual([]);
      expect(data.data.memories).toEqual([]);
      expect(data.data.page).toEqual({
        limit: 100,
        offset: 0,
        has_more: { questions: false, rejected_questions: false, conversations: false, searches: false },
      });
    });

    it('pages every collection: raising offset until nothing has_more yields the complete set, the profile on every page', async () => {
      await history('frob', USER);
      await assistant.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { plan: 'pro' } }] });
      const whole = await assistant.getEndUserData('frob', USER, { limit: 1000, offset: 0 });
      const { all, pages } = await everyPage('frob', USER, 1);
      expect(pages).toHaveLength(2);
      expect(pages[0]?.data.page.has_more).toEqual({ questions: true, rejected_questions: false, conversations: true, searches: true });
      expect(all).toEqual({
        questions: whole.data.questions,
        rejected_questions: whole.data.rejected_questions,
        conversations: whole.data.conversations,
        searches: whole.data.searches,
      });
      for (const page of pages) expect(page.data.profile).toEqual([expect.objectContaining({ profile_data: { plan: 'pro' } })]);
      const past = await assistant.getEndUserData('frob', USER, { limit: 10, offset: 50 });
      expect(past.data).toMatchObject({ questions: [], rejected_questions: [], conversations: [], searches: [], memories: [] });
    });

    it('answers an end user it knows nothing about with empty collections', async () => {
      const data = await assistant.getEndUserData('frob', 'nobody', FIRST);
      expect(data.data).toMatchObject({ questions: [], rejected_questions: [], conversations: [], searches: [], profile: [], memories: [] });
    });

    it('refuses a limit over 1000, a negative offset and an id over 256 characters, naming the problem', async () => {
      await expect(assistant.getEndUserData('frob', USER, { limit: 1001, offset: 0 })).rejects.toMatchObject({
        status: 400,
        message: 'Invalid request parameters: limit must be at most 1000',
      });
      await expect(assistant.getEndUserData('frob', USER, { limit: 10, offset: -1 })).rejects.toMatchObject({
        status: 400,
        message: 'Invalid request parameters: offset must be at least 0',
      });
      await expect(assistant.getEndUserData('frob', 'u'.repeat(257), FIRST)).rejects.toMatchObject({
        status: 400,
        message: 'Invalid request parameters: external_user_id must be at most 256 characters',
      });
    });

    it('answers for an unknown guru with the not-found message', async () => {
      await expect(assistant.getEndUserData('nope', USER, FIRST)).rejects.toMatchObject({ status: 404, message: 'Guru type nope not found' });
      await expect(assistant.eraseEndUserData('nope', USER)).rejects.toMatchObject({ status: 404, message: 'Guru type nope not found' });
      await expect(assistant.upsertProfiles('nope', { users: [{ external_user_id: USER, memory: {} }] })).rejects.toMatchObject({
        status: 404,
        message: 'Guru type nope not found',
      });
    });
  });

  describe('profiles', () => {
    it('creates one profile per user, idempotently: a retry changes nothing but updated_at, and keeps created_at', async () => {
      const request = { users: [{ external_user_id: USER, memory: { plan: 'pro', stack: ['PostgreSQL 15'] } }, { external_user_id: 'second', memory: {} }] };
      const saved = await assistant.upsertProfiles('frob', request);
      expect(saved).toEqual({
        status: 'success',
        total_users: 2,
        processed_users: 2,
        users_results: [
          { user_index: 0, external_user_id: USER, success: true, errors: [] },
          { user_index: 1, external_user_id: 'second', success: true, errors: [] },
        ],
      });
      const [before] = (await assistant.getEndUserData('frob', USER, FIRST)).data.profile;
      harness.setClock(new Date('2026-11-21T08:00:00Z'));
      expect(await assistant.upsertProfiles('frob', request)).toEqual(saved);
      const profile = (await assistant.getEndUserData('frob', USER, FIRST)).data.profile;
      expect(profile).toEqual([{ profile_data: { plan: 'pro', stack: ['PostgreSQL 15'] }, created_at: before?.created_at, updated_at: '2026-11-21T08:00:00.000Z' }]);
    });

    it('replaces the profile with the memory sent last', async () => {
      await assistant.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { plan: 'free', seats: 1 } }] });
      await assistant.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { plan: 'pro' } }, { external_user_id: USER, memory: { plan: 'team' } }] });
      const profile = (await assistant.getEndUserData('frob', USER, FIRST)).data.profile;
      expect(profile.map((p) => p.profile_data)).toEqual([{ plan: 'team' }]);
    });

    it('fails the users that are wrong with 400, details and users_results in order, and saves the others', async () => {
      const request = {
        users: [
          { external_user_id: 'good', memory: { a: 1 } },
          { external_user_id: 'no-memory' },
          { memory: { b: 2 } },
          { external_user_id: 'listed', memory: ['not', 'an', 'object'] },
          { external_user_id: 'huge', memory: { blob: 'x'.repeat(16 * 1024) } },
        ],
      };
      await expect(assistant.upsertProfiles('frob', request)).rejects.toMatchObject({
        status: 400,
        field: 'error',
        message: 'Failed to process some users',
        body: {
          details: [
            'User 1: memory is required',
            'User 2: external_user_id is required',
            'User 3: memory must be a JSON object',
            'User 4: memory must be at most 16 KiB as JSON',
          ],
          users_results: [
            { user_index: 0, external_user_id: 'good', success: true, errors: [] },
            { user_index: 1, external_user_id: 'no-memory', success: false, errors: ['memory is required'] },
            { user_index: 2, external_user_id: '', success: false, errors: ['external_user_id is required'] },
            { user_index: 3, external_user_id: 'listed', success: false, errors: ['memory must be a JSON object'] },
            { user_index: 4, external_user_id: 'huge', success: false, errors: ['memory must be at most 16 KiB as JSON'] },
          ],
        },
      });
      expect((await assistant.getEndUserData('frob', 'good', FIRST)).data.profile).toHaveLength(1);
      expect((await assistant.getEndUserData('frob', 'no-memory', FIRST)).data.profile).toEqual([]);
    });

    it('refuses an empty list and more than 1000 users as a whole', async () => {
      await expect(assistant.upsertProfiles('frob', { users: [] })).rejects.toMatchObject({
        status: 400,
        message: 'Invalid request parameters: users must have at least 1 item',
      });
      const users = Array.from({ length: 1001 }, (_, i) => ({ external_user_id: `u${i}`, memory: {} }));
      await expect(assistant.upsertProfiles('frob', { users })).rejects.toMatchObject({
        status: 400,
        message: 'Invalid request parameters: users must have at most 1000 items',
      });
      expect((await assistant.getEndUserData('frob', 'u0', FIRST)).data.profile).toEqual([]);
    });
  });

  describe('erasing', () => {
    it('erases questions, sessions, searches and the profile, answering the counts; a second erase finds nothing', async () => {
      const { first } = await history('frob', USER);
      await assistant.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { plan: 'pro' } }] });
      expect(await assistant.eraseEndUserData('frob', USER)).toEqual({
        external_user_id: USER,
        deleted: { questions: 2, rejected_questions: 1, conversations: 2, searches: 2, profile: 1, memories: 0, attachments: 1 },
      });
      const after = await assistant.getEndUserData('frob', USER, FIRST);
      expect(after.data).toMatchObject({ questions: [], rejected_questions: [], conversations: [], searches: [], profile: [], memories: [] });
      await expect(assistant.getSession('frob', first.session_id)).rejects.toMatchObject({ message: 'Binge not found' });
      const sessions = await assistant.listSessions('frob', { page_num: 1, search_query: '' });
      expect([...sessions.today, ...sessions.last_week, ...sessions.older]).toEqual([]);
      expect(await harness.storedRows('questions')).toBe(0);
      expect(await harness.storedRows('searches')).toBe(0);
      expect(await harness.storedRows('question_attachments')).toBe(0);
      expect((await assistant.eraseEndUserData('frob', USER)).deleted).toEqual({
        questions: 0,
        rejected_questions: 0,
        conversations: 0,
        searches: 0,
        profile: 0,
        memories: 0,
        attachments: 0,
      });
    });

    it("keeps other end users' data", async () => {
      await history('frob', USER);
      await history('frob', 'someone-else');
      await assistant.eraseEndUserData('frob', USER);
      const kept = await assistant.getEndUserData('frob', 'someone-else', FIRST);
      expect(kept.data.questions).toHaveLength(2);
      expect(kept.data.searches).toHaveLength(2);
    });
  });

  describe('isolation', () => {
    it('never mixes the same external_user_id in two gurus, on any operation', async () => {
      await history('frob', USER);
      await assistant.semanticSearch('quux', { question: 'only in quux', external_user_id: USER });
      await assistant.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { guru: 'frob' } }] });
      await assistant.upsertProfiles('quux', { users: [{ external_user_id: USER, memory: { guru: 'quux' } }] });

      const frob = await assistant.getEndUserData('frob', USER, FIRST);
      const quux = await assistant.getEndUserData('quux', USER, FIRST);
      expect(frob.data.questions).toHaveLength(2);
      expect(quux.data).toMatchObject({ questions: [], rejected_questions: [], conversations: [] });
      expect(quux.data.searches.map((s) => s.query)).toEqual(['only in quux']);
      expect(frob.data.searches.map((s) => s.query)).toEqual(['installer', 'wibble']);
      expect(frob.data.profile.map((p) => p.profile_data)).toEqual([{ guru: 'frob' }]);
      expect(quux.data.profile.map((p) => p.profile_data)).toEqual([{ guru: 'quux' }]);

      expect((await assistant.eraseEndUserData('quux', USER)).deleted).toMatchObject({ questions: 0, conversations: 0, searches: 1, profile: 1 });
      const frobAfter = await assistant.getEndUserData('frob', USER, FIRST);
      expect(frobAfter.data).toEqual(frob.data);
    });
  });
}
