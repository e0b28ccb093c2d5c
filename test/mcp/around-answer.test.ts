/**
 * record_vote, answer_progress and follow_up_examples through the real MCP
 * client: structured content matching the declared output schema, a concise
 * text, and the spec's messages as isError results.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Answer } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { CONFIG_GUIDE, ERAS, INSTALL_GUIDE, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';
import { answerOf } from '../support/mcp-answer.js';

describe.each(ERAS)('MCP tools around an answer (%s)', (era) => {
  let test: TestBackend;
  let client: Client;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await test.backend.assistant.createDataSources('frob', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Config guide', content: CONFIG_GUIDE },
      ],
    });
    await (test.backend.assistant as unknown as { whenIdle(): Promise<void> }).whenIdle();
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  async function ask(question: string, extra: Record<string, unknown> = {}): Promise<Answer> {
    const result = await call('ask', { question, ...extra });
    expect(result.isError, textOf(result)).toBeFalsy();
    return answerOf(result);
  }

  describe('follow_up_examples', () => {
    it('suggests questions after an answer, then the same ones as cached', async () => {
      const answer = await ask('How do I install Frobnicator?');
      const first = await call('follow_up_examples', { question_slug: answer.slug, binge_id: answer.session_id });
      expect(first.isError, textOf(first)).toBeFalsy();
      const { follow_up_examples: suggested } = first.structuredContent as { follow_up_examples: string[] };
      expect(first.structuredContent).toEqual({ follow_up_examples: suggested, question_slug: answer.slug, cached: false });
      expect(suggested.length).toBeGreaterThan(0);
      expect(textOf(first)).toBe(
        [`Possible follow-up questions (answer ${answer.slug}):`, ...suggested.map((question, index) => `${index + 1}. ${question}`)].join('\n'),
      );
      const again = await call('follow_up_examples', { question: 'How do I install Frobnicator?' });
      expect(again.structuredContent).toEqual({ follow_up_examples: suggested, question_slug: answer.slug, cached: true });
    });

    it("reports the spec's errors as isError results", async () => {
      const neither = await call('follow_up_examples', {});
      expect(neither.isError).toBe(true);
      expect(textOf(neither).split('\n')[0]).toBe('Question slug or question text is required');
      const unknown = await call('follow_up_examples', { question_slug: 'nope' });
      expect(textOf(unknown)).toBe('Question does not exist');
      const noBinge = await call('follow_up_examples', { question_slug: 'nope', binge_id: 'nope' });
      expect(textOf(noBinge)).toBe('Binge does not exist');
    });
  });

  describe('answer_progress', () => {
    it("reads the end user's line, and says when nothing is in progress", async () => {
      await ask('How do I install Frobnicator?', { external_user_id: 'mcp-user' });
      const line = await call('answer_progress', { external_user_id: 'mcp-user' });
      expect(line.isError, textOf(line)).toBeFalsy();
      expect(line.structuredContent).toEqual({ status_text: 'Writing the answer…', updated_at: expect.any(Number) });
      const at = new Date((line.structuredContent as { updated_at: number }).updated_at * 1000).toISOString();
      expect(textOf(line)).toBe(`Writing the answer… (updated ${at})`);

      const none = await call('answer_progress', { external_user_id: 'someone-else' });
      expect(none.structuredContent).toEqual({ status_text: '', updated_at: null });
      expect(textOf(none)).toBe('No answer in progress: nothing was reported for this end user in the last 2 minutes.');
    });

    it('refuses a blank end user, saying so', async () => {
      const blank = await call('answer_progress', { external_user_id: '  ' });
      expect(blank.isError).toBe(true);
      expect(textOf(blank).split('\n')[0]).toBe('external_user_id must not be empty');
    });
  });

  describe('record_vote', () => {
    it('records a vote, then says the answer already has one', async () => {
      const answer = await ask('How do I install Frobnicator?');
      const first = await call('record_vote', { content_slug: answer.slug, vote_type: 'upvote', feedback: 'Spot on' });
      expect(first.isError, textOf(first)).toBeFalsy();
      expect(first.structuredContent).toEqual({ vote: 'upvote', feedback: 'Spot on' });
      expect(textOf(first)).toBe(`Recorded an upvote on the answer ${answer.slug} with its feedback.`);

      const second = await call('record_vote', { content_slug: answer.slug, binge_id: answer.session_id, vote_type: 'downvote' });
      expect(second.structuredContent).toEqual({ msg: 'Already voted', vote: 'upvote' });
      expect(textOf(second)).toContain('already has a vote (upvote)');

      const session = await call('get_session', { session_id: answer.session_id });
      expect((session.structuredContent as { conversation: { user_vote: string }[] }).conversation[0]?.user_vote).toBe('upvote');
    });

    it("reports the spec's errors as isError results", async () => {
      const answer = await ask('How do I install Frobnicator?');
      const tooLong = await call('record_vote', { content_slug: answer.slug, vote_type: 'upvote', feedback: 'x'.repeat(201) });
      expect(tooLong.isError).toBe(true);
      expect(textOf(tooLong)).toBe('Feedback must be 200 characters or less');

      const unknown = await call('record_vote', { content_slug: 'nope', vote_type: 'upvote' });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^Question not found\ncontent_slug is the slug of an answer/);

      const badType = await call('record_vote', { content_slug: answer.slug, vote_type: 'meh' });
      expect(badType.isError).toBe(true);
      expect(badType.structuredContent).toBeUndefined();
    });
  });
});
