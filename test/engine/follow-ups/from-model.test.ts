/**
 * Follow-up examples with a language model (the chat-completions stand-in):
 * written by the model from the answer, kept only when the knowledge base can
 * answer them, stored like the others; and built from the knowledge when the
 * model fails.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import type { ChatCompletionsStandIn } from '../../stand-ins/chat-completions.js';
import { jsonReply, openModelEngine, stepCalls, userMessage, type ModelEngine, type Replies } from '../answer/model-replies.js';

const INSTALL = 'How do I install Frobnicator?';

describe('follow-up examples with a language model', () => {
  let opened: ModelEngine;
  let model: ChatCompletionsStandIn;
  let replies: Replies;
  let engine: LocalEngine;

  beforeEach(async () => {
    opened = await openModelEngine([{ slug: 'frob', name: 'frob' }]);
    ({ model, replies, engine } = opened);
  });

  afterEach(() => opened.close());

  it('keeps the questions the model writes that the knowledge can answer and that were not asked, and stores them', async () => {
    replies['follow-ups'] = () =>
      jsonReply({ questions: ['How do I set the wibble level?', 'What is the weather like on Jupiter?', INSTALL.toLowerCase()] });
    const answer = await engine.ask('frob', { question: INSTALL, fetch_existing: false });

    const made = await engine.followUpExamples('frob', { question_slug: answer.slug });
    expect(made).toEqual({ follow_up_examples: ['How do I set the wibble level?'], question_slug: answer.slug, cached: false });
    const [call] = stepCalls(model, 'follow-ups');
    expect(userMessage(call!)).toContain(`Question: ${INSTALL}`);
    expect(userMessage(call!)).toContain(answer.content);

    expect(await engine.followUpExamples('frob', { question_slug: answer.slug })).toEqual({ ...made, cached: true });
    expect(stepCalls(model, 'follow-ups')).toHaveLength(1);
  });

  it('builds them from the knowledge, as without a model, when the model fails', async () => {
    const plain = await LocalEngine.open({ dataDir: opened.dir, processQueue: false });
    try {
      const withoutModel = await plain.ask('frob', { question: INSTALL, fetch_existing: false });
      const expected = (await plain.followUpExamples('frob', { question_slug: withoutModel.slug })).follow_up_examples;
      expect(expected.length).toBeGreaterThan(0);

      replies.answer = () => ({ kind: 'status', status: 500, body: 'down' });
      replies['follow-ups'] = () => ({ kind: 'status', status: 500, body: 'down' });
      const answer = await engine.ask('frob', { question: INSTALL, fetch_existing: false });
      const made = await engine.followUpExamples('frob', { question_slug: answer.slug });
      expect(stepCalls(model, 'follow-ups')).toHaveLength(1);
      expect(made.follow_up_examples).toEqual(expected);
    } finally {
      await plain.close();
    }
  });
});
