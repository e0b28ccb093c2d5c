/**
 * Generated answers end to end on the embedded engine: real documents indexed
 * in SQLite, the language model a loopback stand-in of the chat-completions
 * wire format, questions asked through the Assistant port.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AskOptions } from '../../../src/core/assistant.js';
import type { AskInput } from '../../../src/core/schemas.js';
import { MODEL_CUT_NOTE, MODEL_LENGTH_NOTE, MODEL_FALLBACK_NOTE } from '../../../src/engine/answer/model/generation.js';
import type { LocalEngine } from '../../../src/engine/local-engine.js';
import { startChatCompletionsStandIn, streamOf, type ChatCompletionsStandIn } from '../../stand-ins/chat-completions.js';
import { jsonReply, openModelEngine, sourceNumber, stepCalls, systemMessage, userMessage, type ModelEngine, type Replies } from './model-replies.js';

const INSTALL = 'How do I install Frobnicator?';
const SETTINGS = 'Where does Frobnicator read its settings from?';
const PAGE = { limit: 100, offset: 0 };

describe('generated answers', () => {
  let opened: ModelEngine;
  let model: ChatCompletionsStandIn;
  let replies: Replies;
  let engine: LocalEngine;

  beforeEach(async () => {
    opened = await openModelEngine([
      { slug: 'frob', name: 'Frobnicator' },
      { slug: 'other', name: 'Other' },
    ]);
    ({ model, replies, engine } = opened);
  });

  afterEach(() => opened.close());

  /** Asks, collecting the streamed text. */
  async function ask(input: Partial<AskInput> & { question: string }, options: AskOptions = {}, guru = 'frob', onStreamed?: (text: string) => void) {
    let streamed = '';
    const onText = (delta: string) => {
      streamed += delta;
      onStreamed?.(streamed);
    };
    const answer = await engine.ask(guru, { fetch_existing: false, ...input }, { ...options, onText });
    return { answer, streamed };
  }

  it('streams cited Markdown: sources renumbered in citation order, invented ones dropped, streamed text = stored text', async () => {
    replies.answer = (call) => {
      const config = sourceNumber(call, 'Configuration');
      const install = sourceNumber(call, 'Install guide');
      return streamOf(`Run \`npm install -g frobnicator\` [${install}]. Settings live in frob.toml [${config}][42]. Again [${install}].`);
    };
    const { answer, streamed } = await ask({ question: INSTALL });

    expect(answer.content).toBe('Run `npm install -g frobnicator` [1]. Settings live in frob.toml [2]. Again [1].');
    expect(streamed).toBe(answer.content);
    expect(answer.references.map((reference) => reference.title)).toEqual(['Install guide', 'Configuration']);
    expect(answer.can_receive_feedback).toBe(true);
    const [call] = stepCalls(model, 'answer');
    expect(call?.body.stream).toBe(true);
    expect(userMessage(call!)).toContain(`Question: ${INSTALL}`);
    expect(userMessage(call!)).toContain('npm install -g frobnicator');

    const session = await engine.getSession('frob', answer.session_id);
    expect(session.conversation[0]?.answer).toBe(streamed);
    const again = await engine.ask('frob', { question: INSTALL, fetch_existing: true });
    expect(again.slug).toBe(answer.slug);
    expect(again.content).toBe(streamed);
    expect(again.references).toEqual(answer.references);
  });

  it('cites an attached log in a generated answer, with the note on skipped files streamed first', async () => {
    await engine.updateGuruSettings('frob', { attachment_limits: { log_files: { count: 1 } } });
    const log = 'ERROR frobd: wibble calibration failed with code E-7731 at boot\n';
    replies.answer = (call) => streamOf(`The wibble calibration failed with code E-7731 [${sourceNumber(call, 'frobd.log')}].`);
    const { answer, streamed } = await ask({
      question: 'Why did the wibble calibration fail with code E-7731?',
      log_files: [{ name: 'frobd.log', data: log }, { name: 'second.log', data: log }],
    });

    expect(answer.attachment_note).toMatch(/^Skipped 1 log file/);
    expect(streamed).toBe(answer.content);
    expect(answer.content.startsWith(`> ${answer.attachment_note}\n\n`)).toBe(true);
    expect(answer.content).toContain('E-7731 [1]');
    expect(answer.references.map((reference) => reference.title)).toEqual(['frobd.log']);
    expect(answer.references[0]?.link).toMatch(/^guru:\/\/frob\/sessions\/.+\/attachments\/1$/);
    expect(userMessage(stepCalls(model, 'answer')[0]!)).toContain('E-7731');
  });

  it('combines the grader\'s per-source support with the evidence; an unreadable grade leaves the evidence score', async () => {
    replies.grade = () => ({ kind: 'json', text: 'I think it is fine.' });
    const evidenceOnly = (await ask({ question: INSTALL })).answer.trust_score;
    expect(evidenceOnly).toBeGreaterThan(0);

    replies.grade = () => jsonReply({ grades: [{ source: 1, support: 'full' }] });
    expect((await ask({ question: INSTALL })).answer.trust_score).toBe(Math.min(90, Math.round(60 + 0.4 * evidenceOnly)));
    replies.grade = () => jsonReply({ grades: [{ source: 1, support: 'none' }] });
    expect((await ask({ question: INSTALL })).answer.trust_score).toBe(Math.round(0.4 * evidenceOnly));
    const grading = stepCalls(model, 'grade').at(-1)!;
    expect(grading.body.response_format).toEqual({ type: 'json_object' });
    expect(userMessage(grading)).toContain('[1] Install guide');
  });

  it('says plainly when the knowledge holds no answer: no generation, trust 0, nothing to vote on', async () => {
    const { answer, streamed } = await ask({ question: 'Who won the 2018 World Cup?' });
    expect(answer.content).toMatch(/could not find anything about this/);
    expect(streamed).toBe(answer.content);
    expect(answer.trust_score).toBe(0);
    expect(answer.references).toEqual([]);
    expect(answer.can_receive_feedback).toBe(false);
    expect(stepCalls(model, 'answer')).toEqual([]);
  });

  it('answers an answer that cites nothing (the model found no answer in the sources) with trust 0', async () => {
    replies.answer = () => streamOf('The sources do not say how to install it on a toaster.');
    const { answer } = await ask({ question: INSTALL });
    expect(answer.trust_score).toBe(0);
    expect(answer.references).toEqual([]);
    expect(answer.can_receive_feedback).toBe(false);
  });

  it('replies to "hi" and "thanks" briefly, without searching or calling the model', async () => {
    const hello = await ask({ question: 'Hi there!' });
    expect(hello.answer.content).toBe('Hello! Ask me anything about Frobnicator.\n');
    expect(hello.streamed).toBe(hello.answer.content);
    expect(hello.answer.can_receive_feedback).toBe(false);
    expect(hello.answer.references).toEqual([]);
    expect((await ask({ question: 'merci beaucoup' })).answer.content).toMatch(/^Avec plaisir/);
    expect(model.calls).toEqual([]);
  });

  it('rewrites a follow-up into a standalone question, stores both, and answers the rewritten one', async () => {
    const first = await ask({ question: INSTALL });
    replies.rewrite = () => ({ kind: 'json', text: '"How do I verify the installation of Frobnicator?"' });
    const { answer } = await ask({ question: 'and how do I check it worked?', session_id: first.answer.session_id });

    expect(answer.question).toBe('How do I verify the installation of Frobnicator?');
    const rewrite = stepCalls(model, 'rewrite')[0]!;
    expect(userMessage(rewrite)).toContain(`User: ${INSTALL}`);
    expect(userMessage(rewrite)).toContain('Last message: and how do I check it worked?');
    expect(userMessage(stepCalls(model, 'answer').at(-1)!)).toContain('Question: How do I verify the installation of Frobnicator?');
    const turn = (await engine.getSession('frob', first.answer.session_id)).conversation[1];
    expect(turn?.user_question).toBe('and how do I check it worked?');
    expect(turn?.question).toBe('How do I verify the installation of Frobnicator?');
  });

  it('fetches the stored answer to a follow-up asked again as typed, though it was stored rewritten', async () => {
    const first = await ask({ question: INSTALL });
    replies.rewrite = () => ({ kind: 'json', text: '"How do I verify the installation of Frobnicator?"' });
    const followUp = await ask({ question: 'and how do I check it worked?', session_id: first.answer.session_id });
    const answersBefore = stepCalls(model, 'answer').length;

    const again = await ask({ question: 'and how do I check it worked?', session_id: first.answer.session_id, fetch_existing: true });
    expect(again.answer.slug).toBe(followUp.answer.slug);
    expect(again.streamed).toBe(followUp.answer.content);
    expect(stepCalls(model, 'answer').length).toBe(answersBefore);
  });

  it('answers extractively, saying so, when the provider fails before any text', async () => {
    replies.answer = () => ({ kind: 'status', status: 503, body: { error: { message: 'overloaded' } } });
    const { answer, streamed } = await ask({ question: INSTALL });
    expect(answer.content.startsWith(MODEL_FALLBACK_NOTE)).toBe(true);
    expect(answer.content).toContain('npm install -g frobnicator');
    expect(streamed).toBe(answer.content);
    expect(answer.references[0]?.title).toBe('Install guide');
    expect(answer.can_receive_feedback).toBe(true);
  });

  it('answers extractively when the provider cannot be reached at all', async () => {
    const closed = await startChatCompletionsStandIn();
    const baseUrl = closed.baseUrl;
    await closed.close();
    await opened.reopen(baseUrl);
    engine = opened.engine;
    const { answer } = await ask({ question: INSTALL });
    expect(answer.content.startsWith(MODEL_FALLBACK_NOTE)).toBe(true);
    expect(answer.trust_score).toBeGreaterThan(0);
  });

  it('leaves a model that timed out alone for a while: the next answer falls back at once, without a request', async () => {
    await opened.close();
    opened = await openModelEngine([{ slug: 'frob', name: 'Frobnicator' }], { responseTimeoutMs: 300 });
    ({ model, replies, engine } = opened);
    replies.answer = () => ({ kind: 'stream', steps: [], ending: 'stall' });
    expect((await ask({ question: INSTALL })).answer.content.startsWith(MODEL_FALLBACK_NOTE)).toBe(true);
    expect(stepCalls(model, 'answer')).toHaveLength(1);
    // The rewording and the picking before it were answered; nothing after the answer timed out is asked.
    const calls = model.calls.length;

    const { answer } = await ask({ question: SETTINGS });
    expect(answer.content.startsWith(MODEL_FALLBACK_NOTE)).toBe(true);
    expect(answer.references[0]?.title).toBe('Configuration');
    expect(model.calls).toHaveLength(calls);
  });

  it('keeps what was written, with a note, when the stream breaks midway', async () => {
    // The connection breaks only once the text sent has been read (else it could be lost with the connection).
    let read: () => void = () => {};
    const bothRead = new Promise<void>((resolve) => (read = resolve));
    replies.answer = () => ({
      kind: 'stream',
      steps: [{ text: 'Run the installer [1] ' }, { text: 'and then' }, { raw: '', after: bothRead }],
      ending: 'destroy',
    });
    const { answer, streamed } = await ask({ question: INSTALL }, {}, 'frob', (text) => text.endsWith('and then') && read());
    expect(answer.content).toBe(`Run the installer [1] and then${MODEL_CUT_NOTE}`);
    expect(streamed).toBe(answer.content);
    expect(answer.references.map((reference) => reference.title)).toEqual(['Install guide']);
  });

  it('says so, after closing the code block it was in, when the answer was cut at its length limit', async () => {
    replies.answer = () => ({ kind: 'stream', steps: [{ text: 'Run the installer [1]:\n\n```sh\nnpm install' }], finishReason: 'length' });
    const { answer, streamed } = await ask({ question: INSTALL });
    expect(answer.content).toBe(`Run the installer [1]:\n\n\`\`\`sh\nnpm install\n\`\`\`\n${MODEL_LENGTH_NOTE}`);
    expect(streamed).toBe(answer.content);
  });

  it('answers extractively when the model sends an empty answer', async () => {
    replies.answer = () => ({ kind: 'stream', steps: [] });
    const { answer, streamed } = await ask({ question: INSTALL });
    expect(answer.content.startsWith(MODEL_FALLBACK_NOTE)).toBe(true);
    expect(streamed).toBe(answer.content);
  });

  it("stops generating when the caller aborts, and records nothing", async () => {
    const controller = new AbortController();
    replies.answer = () => ({ kind: 'stream', steps: [{ text: 'Run the installer [1] ' }], ending: 'stall' });
    // Still looking for memories when the caller leaves: that step ends quietly too.
    replies.memories = () => ({ kind: 'json', text: '{"memories": []}', delayMs: 2_000 });
    const asked = engine.ask('frob', { question: INSTALL, fetch_existing: false, external_user_id: 'u-1' }, {
      signal: controller.signal,
      onText: () => controller.abort(new Error('caller left')),
    });
    await expect(asked).rejects.toThrow('caller left');
    const data = await engine.getEndUserData('frob', 'u-1', PAGE);
    expect(data.data.questions).toEqual([]);
  });

  it("keeps facts the end user states as memories, puts them in later prompts of that guru only (in the user's message, never the system prompt)", async () => {
    replies.memories = (call) =>
      userMessage(call).includes('PostgreSQL') ? jsonReply({ memories: ['Runs PostgreSQL 15 on Ubuntu 22.04'] }) : jsonReply({ memories: [] });
    await engine.upsertProfiles('frob', { users: [{ external_user_id: 'u-7', memory: { role: 'DBA' } }] });
    await ask({ question: 'We run PostgreSQL 15 on Ubuntu 22.04. How do I install Frobnicator?', external_user_id: 'u-7' });

    const data = await engine.getEndUserData('frob', 'u-7', PAGE);
    expect(data.data.memories).toEqual([{ memory: 'Runs PostgreSQL 15 on Ubuntu 22.04' }]);
    await ask({ question: SETTINGS, external_user_id: 'u-7' });
    const laterCall = stepCalls(model, 'answer').at(-1)!;
    const later = userMessage(laterCall);
    expect(later).toContain('- Runs PostgreSQL 15 on Ubuntu 22.04');
    expect(later).toContain('"role":"DBA"');
    expect(systemMessage(laterCall)).not.toContain('PostgreSQL');
    expect(systemMessage(laterCall)).not.toContain('DBA');

    await ask({ question: SETTINGS, external_user_id: 'u-7' }, {}, 'other');
    const elsewhere = userMessage(stepCalls(model, 'answer').at(-1)!);
    expect(elsewhere).not.toContain('PostgreSQL');
    expect(elsewhere).not.toContain('DBA');
    expect((await engine.getEndUserData('other', 'u-7', PAGE)).data.memories).toEqual([]);
  });

  it("puts the guru's model instructions into the system prompt, and answers extractively when the guru does not use the model", async () => {
    await engine.updateGuruSettings('frob', { model_instructions: 'Always call the product FROB-9000.' });
    await ask({ question: INSTALL });
    expect(systemMessage(stepCalls(model, 'answer')[0]!)).toContain('Always call the product FROB-9000.');

    await engine.updateGuruSettings('frob', { use_model: false });
    const calls = model.calls.length;
    const { answer } = await ask({ question: INSTALL, external_user_id: 'u-3' });
    expect(model.calls).toHaveLength(calls);
    expect(answer.content).toMatch(/^From \*\*Install guide/);
    expect(answer.content).not.toContain(MODEL_FALLBACK_NOTE);
    const followUps = await engine.followUpExamples('frob', { question_slug: answer.slug });
    expect(followUps.follow_up_examples.length).toBeGreaterThan(0);
    expect(model.calls).toHaveLength(calls);
  });

  it('asks for no memories without an external_user_id', async () => {
    await ask({ question: 'We run PostgreSQL 15. How do I install Frobnicator?' });
    expect(stepCalls(model, 'memories')).toEqual([]);
  });
});
