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
    const first = await assistant.ask(guru, { fetch_existing: false, question: 'How do I install frobnicator?', external_user_id: externalUserId });
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
}
