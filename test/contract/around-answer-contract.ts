/**
 * The operations around an answer (votes, answer progress, follow-up
 * examples), part of the Assistant contract: assistantContract runs these
 * against the local engine and the remote adapter over REST alike.
 */
import { describe, expect, it } from 'vitest';
import type { Assistant } from '../../src/core/assistant.js';
import { FollowUpResponse, RecordedVote, type FollowUpRequest, type RecordVoteRequest } from '../../src/core/schemas.js';
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

  describe('follow-up examples', () => {
    const examples = (request: FollowUpRequest, guru = 'frob') => assistant().followUpExamples(guru, request);

    /** A manual whose sections are far apart in words: a question finds one of them. */
    const CLI_GUIDE = `# The frob command

## Running a job

Start a frobnication job in the foreground with frob run and the job file.

## Scheduling work

Schedule recurring work with frob schedule --at 02:00; schedules survive restarts of the machine.

## Logs

Every run writes its log under ~/.frob/logs, one file per run, kept for thirty days.

## Exit codes

Zero means success, three a failure, four an unreadable input file.
`;

    async function addManual(): Promise<void> {
      await assistant().createDataSources('frob', { text_sources: [{ name: 'Command line', content: CLI_GUIDE }, { name: 'Pancakes', content: COOKING }] });
      await current().whenIdle();
    }

    it('suggests questions about the knowledge around the cited passages, stored on the first call', async () => {
      await addDocs();
      const answer = await assistant().ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
      const first = await examples({ question_slug: answer.slug });
      expect(FollowUpResponse.parse(first)).toEqual(first);
      // The answer quoted the installation section: the requirements beside it are left, then the configuration.
      expect(first).toEqual({
        follow_up_examples: [
          'What should I know about requirements when installing Frobnicator?',
          'What should I know about the configuration file when configuring Frobnicator?',
          'What should I know about environment variables when configuring Frobnicator?',
        ],
        question_slug: answer.slug,
        cached: false,
      });
      await expect(examples({ question_slug: answer.slug, binge_id: answer.session_id })).resolves.toEqual({ ...first, cached: true });
      await expect(examples({ question: '  How do I install   Frobnicator? ' })).resolves.toEqual({ ...first, cached: true });
    });

    it('asks about the sections next to the cited one, nearest first, each a question the guru can answer', async () => {
      await addManual();
      const answer = await assistant().ask('frob', { question: 'How do I start a job in the foreground?', fetch_existing: false });
      expect(answer.references.map((reference) => reference.title)).toEqual(['Command line']);
      const { follow_up_examples: suggested } = await examples({ question_slug: answer.slug });
      // The next two sections; the exit codes lie further away, and nothing else matched the question.
      expect(suggested).toEqual(['What does scheduling work involve?', 'What should I know about logs in the frob command?']);
      for (const question of suggested) {
        const followUp = await assistant().ask('frob', { question, fetch_existing: false });
        expect(followUp.trust_score, question).toBeGreaterThan(0);
        expect(followUp.references[0]?.title, question).toBe('Command line');
      }
    });

    it('leaves out what the session has already covered', async () => {
      await addManual();
      const first = await assistant().ask('frob', { question: 'How do I start a job in the foreground?', fetch_existing: false });
      const [next] = (await examples({ question_slug: first.slug })).follow_up_examples;
      const second = await assistant().ask('frob', { question: next!, session_id: first.session_id, fetch_existing: false });
      const after = await examples({ question_slug: second.slug, binge_id: first.session_id });
      // Around the scheduling section: running a job was the first answer, so what is left is after it.
      expect(next).toBe('What does scheduling work involve?');
      expect(after).toEqual({
        follow_up_examples: ['What should I know about logs in the frob command?', 'What should I know about exit codes in the frob command?'],
        question_slug: second.slug,
        cached: false,
      });
    });

    it('suggests nothing after an answer that found nothing, and says so from then on', async () => {
      await addDocs();
      const nothing = await assistant().ask('frob', { question: 'What is the capital of Mongolia?', fetch_existing: false });
      await expect(examples({ question_slug: nothing.slug })).resolves.toEqual({ follow_up_examples: [], question_slug: nothing.slug, cached: false });
      await expect(examples({ question_slug: nothing.slug })).resolves.toEqual({ follow_up_examples: [], question_slug: nothing.slug, cached: true });
    });

    it.each([
      ['neither question_slug nor question', {}, 'Question slug or question text is required'],
      ['only a session', { binge_id: 'some-session' }, 'Question slug or question text is required'],
      ['an empty question_slug', { question_slug: '' }, 'question_slug must not be empty'],
      ['a blank question', { question: '   ' }, 'question must not be empty'],
      ['a question_slug over 256 characters', { question_slug: 'q'.repeat(257) }, 'question_slug must be at most 256 characters'],
      ['a question that is not text', { question: 42 }, 'question must be a string'],
    ])('refuses %s, saying so', async (_name, request, message) => {
      await expect(examples(request as FollowUpRequest)).rejects.toMatchObject({ status: 400, field: 'error', message });
    });

    it('answers "Binge does not exist" for an unknown, deleted or foreign session, "Question does not exist" for an unknown answer', async () => {
      await addDocs();
      const answer = await assistant().ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
      const noBinge = { status: 400, field: 'error', message: 'Binge does not exist' };
      const noQuestion = { status: 404, field: 'error', message: 'Question does not exist' };
      await expect(examples({ question_slug: answer.slug, binge_id: 'no-such-session' })).rejects.toMatchObject(noBinge);
      await expect(examples({ question_slug: 'no-such-answer' })).rejects.toMatchObject(noQuestion);
      await expect(examples({ question: 'Never asked?' })).rejects.toMatchObject(noQuestion);
      const elsewhere = await assistant().ask('frob', { question: 'pancakes', fetch_existing: false });
      await expect(examples({ question_slug: answer.slug, binge_id: elsewhere.session_id })).rejects.toMatchObject(noQuestion);

      await current().createGuru('other');
      await expect(examples({ question_slug: answer.slug }, 'other')).rejects.toMatchObject(noQuestion);
      await expect(examples({ question: 'pancakes', binge_id: elsewhere.session_id }, 'other')).rejects.toMatchObject(noBinge);
      await assistant().deleteSession('frob', elsewhere.session_id);
      await expect(examples({ question: 'pancakes', binge_id: elsewhere.session_id })).rejects.toMatchObject(noBinge);
    });

    it("answers for an unknown guru with the operation's error", async () => {
      await expectUnknownGuru(examples({ question: 'hi' }, 'nope'), { status: 404, message: 'Guru type does not exist' });
    });
  });

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
      expect(turn).toMatchObject({ user_vote: 'downvote', can_receive_feedback: true });

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
      expect((await assistant().getSession('frob', nothing.session_id)).conversation[0]).toMatchObject({ user_vote: null, can_receive_feedback: false });
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
