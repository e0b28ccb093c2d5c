/**
 * The model where words fail, end to end on the embedded engine with the
 * loopback stand-in: the question reworded in the documentation's vocabulary
 * before the search, the passages that answer picked before generation, and
 * today's path whenever the model fails, answers garbage or does not answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { startEmbeddingsStandIn } from '../../stand-ins/embeddings.js';
import { readPicks, readRewrites } from '../../../src/engine/answer/model/retrieval-steps.js';
import { createLogger } from '../../../src/log.js';
import { defaultReplies, jsonReply, offeredPassages, openModelEngine, sourceNumber, stepCalls, stepOf, userMessage, type ModelEngine } from './model-replies.js';
import { startChatCompletionsStandIn, type ChatCall } from '../../stand-ins/chat-completions.js';

/** None of its words is in the guides (the configuration guide says "settings", "configuration file"). */
const IN_OTHER_WORDS = 'Where do the knobs for tweaking my setup live?';
const BOTH = 'How do I install Frobnicator, and where does it read its settings from?';

/** The number the picking step gave the first passage of the page titled `title`. */
function offeredNumber(call: ChatCall, title: string): number {
  const match = new RegExp(`^\\[(\\d+)\\] ${title}`, 'm').exec(userMessage(call));
  if (!match) throw new Error(`no passage of "${title}" offered`);
  return Number(match[1]);
}

describe('the model where words fail', () => {
  let opened: ModelEngine | undefined;
  const lines: string[] = [];

  afterEach(async () => {
    await opened?.close();
    opened = undefined;
    lines.length = 0;
  });

  const open = (steps?: { rewriteTimeoutMs?: number; pickTimeoutMs?: number }) =>
    openModelEngine([{ slug: 'frob', name: 'Frobnicator' }], {}, createLogger('debug', (line) => lines.push(line)), steps);

  it('searches the rewrites beside the question: words not in the docs find the page their rewrite names', async () => {
    opened = await open();
    const { engine, model, replies } = opened;
    // Today's path: the question's own words find nothing, and the model is not asked to answer.
    const declined = await engine.ask('frob', { question: IN_OTHER_WORDS, fetch_existing: false });
    expect(declined.references).toEqual([]);
    expect(stepCalls(model, 'answer')).toHaveLength(0);

    replies.reword = () => jsonReply({ rewrites: ['configuration file settings', 'environment variables'] });
    replies.answer = (call) => streamCiting(call, 'Configuration');
    const answer = await engine.ask('frob', { question: IN_OTHER_WORDS, fetch_existing: false });
    expect(answer.references.map((reference) => reference.title)).toEqual(['Configuration']);
    const [call] = stepCalls(model, 'answer');
    expect(userMessage(call!)).toContain('frob.toml');
    expect(userMessage(call!)).toContain(`Question: ${IN_OTHER_WORDS}`);
    expect(userMessage(stepCalls(model, 'reword').at(-1)!)).toBe(IN_OTHER_WORDS);
    expect(lines.some((line) => line.includes('question reworded for the search'))).toBe(true);
  });

  it("generates from the picked passages only", async () => {
    opened = await open();
    const { engine, model, replies } = opened;
    replies.pick = (call) => jsonReply({ passages: [offeredNumber(call, 'Configuration')] });
    replies.answer = (call) => streamCiting(call, 'Configuration');
    const answer = await engine.ask('frob', { question: BOTH, fetch_existing: false });

    const [pick] = stepCalls(model, 'pick');
    expect(offeredPassages(pick!).length).toBeGreaterThan(1);
    expect(userMessage(pick!)).toContain('Install guide');
    const prompt = userMessage(stepCalls(model, 'answer')[0]!);
    expect(prompt).toContain('[1] Configuration');
    expect(prompt).not.toContain('Install guide');
    expect(prompt).not.toContain('npm install');
    expect(answer.references.map((reference) => reference.title)).toEqual(['Configuration']);
  });

  it('falls back to today\'s path when the model fails or answers garbage', async () => {
    opened = await open();
    const { engine, model, replies } = opened;
    replies.reword = () => ({ kind: 'status', status: 500, body: { error: { message: 'boom' } } });
    replies.pick = () => jsonReply({ chosen: 'the best ones' });
    replies.answer = (call) => streamCiting(call, 'Install guide');
    const answer = await engine.ask('frob', { question: BOTH, fetch_existing: false });

    expect(answer.references.map((reference) => reference.title)).toEqual(['Install guide']);
    const prompt = userMessage(stepCalls(model, 'answer')[0]!);
    expect(prompt).toContain('Install guide');
    expect(prompt).toContain('Configuration');
    expect(lines.some((line) => line.includes('rewording the question failed') && line.includes('boom'))).toBe(true);
    expect(lines.some((line) => line.includes("picking the passages: the language model's reply could not be read"))).toBe(true);
  });

  it('falls back to today\'s path when the model does not answer a step in time', async () => {
    opened = await open({ rewriteTimeoutMs: 200, pickTimeoutMs: 200 });
    const { engine, model, replies } = opened;
    replies.reword = () => ({ kind: 'stream', steps: [], ending: 'stall' });
    replies.pick = () => ({ kind: 'stream', steps: [], ending: 'stall' });
    replies.answer = (call) => streamCiting(call, 'Install guide');
    const answer = await engine.ask('frob', { question: BOTH, fetch_existing: false });

    expect(answer.references.map((reference) => reference.title)).toEqual(['Install guide']);
    const prompt = userMessage(stepCalls(model, 'answer')[0]!);
    expect(prompt).toContain('Configuration');
    expect(lines.some((line) => line.includes('rewording the question failed') && line.includes('no reply within 200 ms'))).toBe(true);
    expect(lines.some((line) => line.includes('picking the passages failed') && line.includes('no reply within 200 ms'))).toBe(true);
    // A slow step is no outage: the answer itself was still asked for.
    expect(stepCalls(model, 'answer')).toHaveLength(1);
  });

  it('runs neither step when both are turned off', async () => {
    opened = await open({ rewriteTimeoutMs: 0, pickTimeoutMs: 0 });
    const { engine, model } = opened;
    await engine.ask('frob', { question: BOTH, fetch_existing: false });
    expect(stepCalls(model, 'reword')).toHaveLength(0);
    expect(stepCalls(model, 'pick')).toHaveLength(0);
    expect(stepCalls(model, 'answer')).toHaveLength(1);
  });
});

describe('with an embeddings endpoint', () => it('keeps hybrid retrieval: the vector neighbours are offered beside the rewrites\' word matches', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'guru-model-hybrid-'));
  const vectors = await startEmbeddingsStandIn();
  const replies = defaultReplies();
  replies.reword = () => jsonReply({ rewrites: ['automobile servicing'] });
  replies.answer = (call) => streamCiting(call, 'Workshop');
  const model = await startChatCompletionsStandIn({ respond: (call) => replies[stepOf(call)](call) });
  const engine = await LocalEngine.open({
    dataDir: dir,
    embeddings: { baseUrl: vectors.baseUrl, model: 'concepts-v1' },
    llm: { baseUrl: model.baseUrl, model: 'stand-in', maxAttempts: 1 },
  });
  try {
    await engine.createGuru({ slug: 'shop', name: 'Shop' });
    await engine.createDataSources('shop', {
      text_sources: [
        { name: 'Workshop', content: 'Our workshop does automobile servicing on weekdays.' },
        { name: 'Bakery', content: 'The bakery sells sourdough loaf every morning.' },
      ],
    });
    // Vectors are written after the text is indexed; search until they take part.
    while ((await engine.semanticSearch('shop', { question: 'car repair' })).sources[0]?.title !== 'Workshop') await sleep(20);

    const answer = await engine.ask('shop', { question: 'Who can fix my car?', fetch_existing: false });
    expect(answer.references.map((reference) => reference.title)).toEqual(['Workshop']);
    expect(vectors.embedded.get('concepts-v1')).toContain('Who can fix my car?');
    expect(userMessage(stepCalls(model, 'pick')[0]!)).toContain('automobile servicing');
  } finally {
    await engine.close();
    await model.close();
    await vectors.close();
    rmSync(dir, { recursive: true, force: true });
  }
}));

describe('reading the steps\' replies', () => {
  it('reads rewrites as JSON, as an array or one per line; garbage is undefined, none is []', () => {
    expect(readRewrites('```json\n{"rewrites": ["streaming contents", "stream_with_context"]}\n```', 'q')).toEqual(['streaming contents', 'stream_with_context']);
    expect(readRewrites('["a b", "c d", "e f", "g h"]', 'q')).toEqual(['a b', 'c d', 'e f']);
    expect(readRewrites('1. streaming response\n- "generator view"\n', 'q')).toEqual(['streaming response', 'generator view']);
    expect(readRewrites('{"rewrites": ["Q", "q", 7, ""]}', 'q')).toEqual([]);
    expect(readRewrites('{"rewrites": []}', 'q')).toEqual([]);
    expect(readRewrites('{"answer": "it depends"}', 'q')).toBeUndefined();
    expect(readRewrites('x'.repeat(400), 'q')).toBeUndefined();
  });

  it('reads picks in range, each once, in the order given', () => {
    expect(readPicks('{"passages": [3, 1, 3, 40]}', 12)).toEqual([3, 1]);
    expect(readPicks('Passages 2 and 5.', 12)).toEqual([2, 5]);
    expect(readPicks('[0, 13]', 12)).toBeUndefined();
    expect(readPicks('none of them', 12)).toBeUndefined();
  });
});

/** A streamed answer citing the source titled `title`. */
function streamCiting(call: ChatCall, title: string) {
  const number = sourceNumber(call, title);
  return { kind: 'stream', steps: [{ text: `See the ${title} [${number}].` }] } as const;
}
