/**
 * The operations around an answer (votes, answer progress, follow-up
 * examples), part of the Assistant contract: assistantContract runs these
 * against the local engine and the remote adapter over REST alike.
 */
import { describe, expect, it } from 'vitest';
import type { Assistant } from '../../src/core/assistant.js';
import { RecordedVote, type RecordVoteRequest } from '../../src/core/schemas.js';
import { CONFIG_GUIDE, COOKING, INSTALL_GUIDE } from './fixtures.js';
import type { ContractHarness } from './harness.js';

/** The suite's current harness; assistantContract opens a fresh one (guru `frob`, no sources) for each test. */
export type CurrentHarness = () => ContractHarness;

export function aroundAnswerContract(current: CurrentHarness): void {
  const assistant = (): Assistant => current().assistant;

  async function addDocs(): Promise<void> {
    await assistant().createDataSources('frob', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration', content: CONFIG_GUIDE },
        { name: 'Pancakes', content: COOKING },
      ],
    });
    await current().whenIdle();
  }

  /** What an unknown guru answers, over REST too. */
  function expectUnknownGuru(call: Promise<unknown>, notFound: { status: number; message: string }) {
    return expect(call).rejects.toMatchObject(notFound);
  }

  describe('answer progress', () => {
    const progressOf = (user: string, guru = 'frob') => assistant().answerProgress(guru, { external_user_id: user });
    /** The engine's clock of the harness (2026-11-20T12:00:00Z) in Unix seconds. */
    const START = Date.parse('2026-11-20T12:00:00Z') / 1000;

    it('is empty with updated_at null before anything is reported', async () => {
      await expect(progressOf('nobody-yet')).resolves.toEqual({ status_text: '', updated_at: null });
    });

    it('says "Writing the answer…" while the text streams, and keeps it after the answer ends', async () => {
      await addDocs();
      let during: Promise<unknown> | undefined;
      await assistant().ask(
        'frob',
        { question: 'How do I install Frobnicator?', external_user_id: 'u1', fetch_existing: false },
        { onText: () => void (during ??= progressOf('u1')) },
      );
      await expect(during).resolves.toEqual({ status_text: 'Writing the answer…', updated_at: START });
      await expect(progressOf('u1')).resolves.toEqual({ status_text: 'Writing the answer…', updated_at: START });
    });

    it('keeps one line per guru and end user, none for answers asked without one', async () => {
      await addDocs();
      await current().createGuru('other');
      await assistant().ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
      await assistant().ask('frob', { question: 'How do I install Frobnicator?', external_user_id: 'alice', fetch_existing: false });
      await expect(progressOf('alice')).resolves.toMatchObject({ status_text: 'Writing the answer…' });
      await expect(progressOf('bob')).resolves.toEqual({ status_text: '', updated_at: null });
      await expect(progressOf('alice', 'other')).resolves.toEqual({ status_text: '', updated_at: null });
    });

    it('moves updated_at with each answer, and expires two minutes after the last update', async () => {
      await addDocs();
      const ask = (question: string) => assistant().ask('frob', { question, external_user_id: 'u2', fetch_existing: false });
      const first = await ask('How do I install Frobnicator?');
      current().setClock(new Date((START + 30.25) * 1000));
      await assistant().ask('frob', { question: 'And the settings?', session_id: first.session_id, external_user_id: 'u2', fetch_existing: false });
      await expect(progressOf('u2')).resolves.toEqual({ status_text: 'Writing the answer…', updated_at: START + 30.25 });

      current().setClock(new Date((START + 30.25 + 119) * 1000));
      await expect(progressOf('u2')).resolves.toMatchObject({ status_text: 'Writing the answer…' });
      current().setClock(new Date((START + 30.25 + 121) * 1000));
      await expect(progressOf('u2')).resolves.toEqual({ status_text: '', updated_at: null });
      await ask('Where are the settings?');
      await expect(progressOf('u2')).resolves.toEqual({ status_text: 'Writing the answer…', updated_at: START + 30.25 + 121 });
    });

    it.each([
      ['no external_user_id', undefined, 'external_user_id is required'],
      ['an empty one', '', 'external_user_id must not be empty'],
      ['a blank one', '   ', 'external_user_id must not be empty'],
      ['one over 256 characters', 'u'.repeat(257), 'external_user_id must be at most 256 characters'],
    ])('refuses %s, saying so', async (_name, user, message) => {
      await expect(assistant().answerProgress('frob', { external_user_id: user } as { external_user_id: string })).rejects.toMatchObject({
        status: 400,
        field: 'msg',
        message,
      });
    });

    it("answers for an unknown guru with the operation's error", async () => {
      await expectUnknownGuru(progressOf('u1', 'nope'), { status: 404, message: 'Guru type nope not found' });
    });
  });

  describe('votes', () => {
    async function answered() {
      await addDocs();
      return assistant().ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
    }

    it('records a vote with its feedback, shown as user_vote of the turn; the first vote stands', async () => {
      const answer = await answered();
      const first = await assistant().recordVote('frob', {
        content_slug: answer.slug,
        binge_id: answer.session_id,
        vote_type: 'downvote',
        feedback: '  Misses Windows  ',
      });
      expect(RecordedVote.parse(first)).toEqual(first);
      expect(first).toEqual({ vote: 'downvote', feedback: 'Misses Windows' });
      const [turn] = (await assistant().getSession('frob', answer.session_id)).conversation;
      expect(turn?.user_vote).toBe('downvote');

      const again = await assistant().recordVote('frob', { content_slug: answer.slug, vote_type: 'upvote' });
      expect(again).toEqual({ msg: 'Already voted', vote: 'downvote' });
      expect((await assistant().getSession('frob', answer.session_id)).conversation[0]?.user_vote).toBe('downvote');
    });

    it('takes a vote without feedback or session, and feedback of exactly 200 characters in any script', async () => {
      const answer = await answered();
      await expect(assistant().recordVote('frob', { content_slug: answer.slug, vote_type: 'upvote' })).resolves.toEqual({
        vote: 'upvote',
        feedback: null,
      });
      const other = await assistant().ask('frob', { question: 'Where are the settings of Frobnicator?', fetch_existing: false });
      // 200 characters that are 400 UTF-16 units: the limit counts characters.
      const feedback = '👍'.repeat(200);
      await expect(assistant().recordVote('frob', { content_slug: other.slug, vote_type: 'upvote', feedback })).resolves.toEqual({
        vote: 'upvote',
        feedback,
      });
    });

    it('refuses feedback over 200 characters with its own message, recording nothing', async () => {
      const answer = await answered();
      await expect(
        assistant().recordVote('frob', { content_slug: answer.slug, vote_type: 'upvote', feedback: 'x'.repeat(201) }),
      ).rejects.toMatchObject({ status: 400, field: 'msg', message: 'Feedback must be 200 characters or less' });
      expect((await assistant().getSession('frob', answer.session_id)).conversation[0]?.user_vote).toBeNull();
    });

    it('answers "Question not found" for an unknown answer, another session, a deleted session or another guru', async () => {
      const answer = await answered();
      const notFound = { status: 404, field: 'msg', message: 'Question not found' };
      await expect(assistant().recordVote('frob', { content_slug: 'no-such-answer', vote_type: 'upvote' })).rejects.toMatchObject(notFound);
      const elsewhere = await assistant().ask('frob', { question: 'pancakes', fetch_existing: false });
      await expect(
        assistant().recordVote('frob', { content_slug: answer.slug, binge_id: elsewhere.session_id, vote_type: 'upvote' }),
      ).rejects.toMatchObject(notFound);

      await current().createGuru('other');
      await expect(assistant().recordVote('other', { content_slug: answer.slug, vote_type: 'upvote' })).rejects.toMatchObject(notFound);

      await assistant().deleteSession('frob', answer.session_id);
      await expect(assistant().recordVote('frob', { content_slug: answer.slug, vote_type: 'upvote' })).rejects.toMatchObject(notFound);
    });

    it('takes no vote on an answer that cannot receive feedback', async () => {
      await addDocs();
      const nothing = await assistant().ask('frob', { question: 'What is the capital of Mongolia?', fetch_existing: false });
      expect(nothing.can_receive_feedback).toBe(false);
      await expect(assistant().recordVote('frob', { content_slug: nothing.slug, vote_type: 'upvote' })).rejects.toMatchObject({
        status: 400,
        message: 'Invalid parameters: this answer takes no votes (its can_receive_feedback is false)',
      });
      expect((await assistant().getSession('frob', nothing.session_id)).conversation[0]?.user_vote).toBeNull();
    });

    it.each([
      ['an unknown vote type', { content_slug: 'x', vote_type: 'sideways' }, 'vote_type must be one of "upvote", "downvote"'],
      ['no vote type', { content_slug: 'x' }, 'vote_type must be one of "upvote", "downvote"'],
      ['an empty answer slug', { content_slug: '', vote_type: 'upvote' }, 'content_slug must not be empty'],
      ['an answer slug over 256 characters', { content_slug: 's'.repeat(257), vote_type: 'upvote' }, 'content_slug must be at most 256 characters'],
      ['feedback that is not text', { content_slug: 'x', vote_type: 'upvote', feedback: 5 }, 'feedback must be a string'],
    ])('refuses %s with "Invalid parameters" and the problem', async (_name, request, problem) => {
      await expect(assistant().recordVote('frob', request as unknown as RecordVoteRequest)).rejects.toMatchObject({
        status: 400,
        field: 'msg',
        message: `Invalid parameters: ${problem}`,
      });
    });

    it("answers for an unknown guru with the operation's error", async () => {
      await expectUnknownGuru(assistant().recordVote('nope', { content_slug: 'x', vote_type: 'upvote' }), {
        status: 404,
        message: 'Guru type nope not found',
      });
    });
  });
}
