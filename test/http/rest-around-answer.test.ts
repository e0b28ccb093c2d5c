/**
 * The endpoints around an answer over real HTTP: record_vote, answer-progress
 * and follow-up/examples, with the spec's statuses, bodies and fields, bad
 * input of every shape, and their rate limits. What they do in detail is held
 * by the contract suite (test/contract/around-answer-contract.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend, type OpenedRateLimiter } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import type { Answer } from '../../src/core/schemas.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';
import { CONFIG_GUIDE, INSTALL_GUIDE } from '../contract/fixtures.js';
import { call } from './support.js';

/** Bodies that are no request of any endpoint (a JSON null counts as no body). */
const NOT_OBJECTS = [[], 'text', 42, true] as const;

describe('REST endpoints around an answer', () => {
  let dataDir: string;
  let backend: OpenedBackend;
  let server: RunningHttpServer;
  let key: string;
  let otherKey: string;

  const ask = async (question: string, extra: Record<string, unknown> = {}): Promise<Answer> => {
    const reply = await call(server.url, 'POST', '/api/v1/frob/answer/', { key, body: { question, ...extra } });
    expect(reply.status).toBe(200);
    return reply.json as Answer;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-around-'));
    const config = Config.parse({ dataDir, rateLimitPerMinute: 0 });
    backend = await openBackend(config, silentLogger);
    key = (await backend.admin!.createGuru({ slug: 'frob' })).api_key;
    otherKey = (await backend.admin!.createGuru({ slug: 'other' })).api_key;
    server = await startHttpServer({ backend, logger: silentLogger, host: '127.0.0.1', port: 0, limiter: await openRateLimiter(config, silentLogger) });
    await backend.assistant.createDataSources('frob', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration', content: CONFIG_GUIDE },
      ],
    });
    await (backend.assistant as unknown as { whenIdle(): Promise<void> }).whenIdle();
  });

  afterAll(async () => {
    await server?.close();
    await backend?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  describe('POST {guru}/follow-up/examples/', () => {
    const examples = (body: unknown, options: { key?: string } = {}) =>
      call(server.url, 'POST', '/api/v1/frob/follow-up/examples/', { key: options.key ?? key, body });

    it('makes the examples on the first call and answers them as cached afterwards', async () => {
      const answer = await ask('How do I install Frobnicator?');
      const first = await examples({ question_slug: answer.slug, binge_id: answer.session_id });
      expect(first.status).toBe(200);
      const body = first.json as { follow_up_examples: string[]; question_slug: string; cached: boolean };
      expect(body).toMatchObject({ question_slug: answer.slug, cached: false });
      expect(body.follow_up_examples.length).toBeGreaterThan(0);
      const again = await call(server.url, 'POST', '/api/v1/frob/follow-up/examples', { key, body: { question: answer.question } });
      expect(again.status).toBe(200);
      expect(again.json).toEqual({ ...body, cached: true });
    });

    it('answers 404 and 400 with the spec messages in "error"', async () => {
      const answer = await ask('Where does Frobnicator read its settings?');
      const unknown = await examples({ question_slug: 'nothing-like-it' });
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual({ error: 'Question does not exist' });
      const noBinge = await examples({ question_slug: answer.slug, binge_id: 'no-such-binge' });
      expect(noBinge.status).toBe(400);
      expect(noBinge.json).toEqual({ error: 'Binge does not exist' });
    });

    it('refuses a missing, unknown or other guru\'s key with 401 in "error"', async () => {
      for (const options of [{ key: '' }, { key: 'guru_nope' }, { key: otherKey }]) {
        const reply = await examples({ question: 'x' }, options);
        expect(reply.status).toBe(401);
        expect(reply.json).toEqual({ error: 'Invalid API key' });
      }
    });

    it.each([
      ...NOT_OBJECTS.map((body) => ({ name: `a body of ${JSON.stringify(body)}`, body, problem: 'The request must be a JSON object' })),
      { name: 'an empty body', body: {}, problem: 'Question slug or question text is required' },
      { name: 'a JSON null', body: null, problem: 'Question slug or question text is required' },
      { name: 'only a binge_id', body: { binge_id: 'b' }, problem: 'Question slug or question text is required' },
      { name: 'a numeric question_slug', body: { question_slug: 12 }, problem: 'question_slug must be a string' },
      { name: 'a question_slug list', body: { question_slug: ['a'] }, problem: 'question_slug must be a string' },
      { name: 'a null question', body: { question: null }, problem: 'question must be a string' },
      { name: 'a question over 10,000 characters', body: { question: 'q'.repeat(10_001) }, problem: 'question must be at most 10000 characters' },
      { name: 'a binge_id over 256 characters', body: { question: 'q', binge_id: 'b'.repeat(257) }, problem: 'binge_id must be at most 256 characters' },
    ])('answers 400 for $name, saying what is wrong', async ({ body, problem }) => {
      const reply = await examples(body);
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: problem });
    });

    it('answers a body that is not JSON with 400, and GET with 405', async () => {
      const broken = await call(server.url, 'POST', '/api/v1/frob/follow-up/examples/', { key, rawBody: '{"question": ', headers: { 'content-type': 'application/json' } });
      expect(broken.status).toBe(400);
      expect(broken.json).toEqual({ error: 'Invalid JSON body' });
      const get = await call(server.url, 'GET', '/api/v1/frob/follow-up/examples/', { key });
      expect(get.status).toBe(405);
    });
  });

  describe('GET {guru}/answer-progress/', () => {
    const progress = (query: string, options: { key?: string } = {}) =>
      call(server.url, 'GET', `/api/v1/frob/answer-progress/${query}`, { key: options.key ?? key });

    it('answers the end user\'s line with updated_at in Unix seconds, and an empty line for others', async () => {
      const before = Date.now() / 1000;
      await ask('How do I install Frobnicator?', { external_user_id: 'poller 1/ü' });
      const after = Date.now() / 1000;
      const reply = await progress(`?external_user_id=${encodeURIComponent('poller 1/ü')}`);
      expect(reply.status).toBe(200);
      const line = reply.json as { status_text: string; updated_at: number };
      expect(line.status_text).toBe('Writing the answer…');
      expect(line.updated_at).toBeGreaterThanOrEqual(before);
      expect(line.updated_at).toBeLessThanOrEqual(after);

      const nobody = await call(server.url, 'GET', '/api/v1/frob/answer-progress?external_user_id=nobody', { key });
      expect(nobody.status).toBe(200);
      expect(nobody.json).toEqual({ status_text: '', updated_at: null });
    });

    it.each([
      { query: '', problem: 'external_user_id is required' },
      { query: '?', problem: 'external_user_id is required' },
      { query: '?user=u1', problem: 'external_user_id is required' },
      { query: '?external_user_id=', problem: 'external_user_id must not be empty' },
      { query: '?external_user_id=%20%20', problem: 'external_user_id must not be empty' },
      { query: `?external_user_id=${'u'.repeat(257)}`, problem: 'external_user_id must be at most 256 characters' },
    ])('answers 400 for the query "$query", saying what is wrong', async ({ query, problem }) => {
      const reply = await progress(query);
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ msg: problem });
    });

    it('refuses a missing, unknown or other guru\'s key with 401, and POST with 405', async () => {
      for (const options of [{ key: '' }, { key: 'guru_nope' }, { key: otherKey }]) {
        const reply = await progress('?external_user_id=u1', options);
        expect(reply.status).toBe(401);
        expect(reply.json).toEqual({ msg: 'Invalid API key' });
      }
      const post = await call(server.url, 'POST', '/api/v1/frob/answer-progress/?external_user_id=u1', { key, body: {} });
      expect(post.status).toBe(405);
      expect(post.headers.allow).toBe('GET');
    });
  });

  describe('POST {guru}/record_vote/', () => {
    const vote = (body: unknown, options: { key?: string; path?: string } = {}) =>
      call(server.url, 'POST', options.path ?? '/api/v1/frob/record_vote/', { key: options.key ?? key, body });

    it('records a vote (200 {vote, feedback}), then answers a second one 200 "Already voted"', async () => {
      const answer = await ask('How do I install Frobnicator?');
      const first = await vote({ content_slug: answer.slug, binge_id: answer.session_id, vote_type: 'upvote', feedback: 'Clear' });
      expect(first.status).toBe(200);
      expect(first.json).toEqual({ vote: 'upvote', feedback: 'Clear' });
      const second = await vote({ content_slug: answer.slug, vote_type: 'downvote' }, { path: '/api/v1/frob/record_vote' });
      expect(second.status).toBe(200);
      expect(second.json).toEqual({ msg: 'Already voted', vote: 'upvote' });
      const session = await call(server.url, 'POST', `/api/v1/sessions/${answer.session_id}/conversation/`, { key });
      expect((session.json as { conversation: { user_vote: string | null }[] }).conversation[0]?.user_vote).toBe('upvote');
    });

    it('answers 404 "Question not found" for an answer it does not have', async () => {
      const reply = await vote({ content_slug: 'nothing-like-it', vote_type: 'upvote' });
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual({ msg: 'Question not found' });
    });

    it('refuses a missing, unknown or other guru\'s key with 401 "Invalid API key"', async () => {
      for (const options of [{ key: '' }, { key: 'guru_nope' }, { key: otherKey }]) {
        const reply = await vote({ content_slug: 'x', vote_type: 'upvote' }, options);
        expect(reply.status).toBe(401);
        expect(reply.json).toEqual({ msg: 'Invalid API key' });
      }
    });

    it('answers 400 "Feedback must be 200 characters or less" however long the feedback', async () => {
      const answer = await ask('Where does Frobnicator read its settings?');
      for (const length of [201, 100_000]) {
        const reply = await vote({ content_slug: answer.slug, vote_type: 'upvote', feedback: 'f'.repeat(length) });
        expect(reply.status).toBe(400);
        expect(reply.json).toEqual({ msg: 'Feedback must be 200 characters or less' });
      }
    });

    it.each([
      ...NOT_OBJECTS.map((body) => ({ name: `a body of ${JSON.stringify(body)}`, body, problem: 'The request must be a JSON object' })),
      { name: 'an empty body', body: {}, problem: 'content_slug is required; vote_type must be one of "upvote", "downvote"' },
      { name: 'a JSON null', body: null, problem: 'content_slug is required; vote_type must be one of "upvote", "downvote"' },
      { name: 'no content_slug', body: { vote_type: 'upvote' }, problem: 'content_slug is required' },
      { name: 'a numeric content_slug', body: { content_slug: 7, vote_type: 'upvote' }, problem: 'content_slug must be a string' },
      { name: 'a content_slug of 257 characters', body: { content_slug: 'c'.repeat(257), vote_type: 'upvote' }, problem: 'content_slug must be at most 256 characters' },
      { name: 'a binge_id of 257 characters', body: { content_slug: 'c', binge_id: 'b'.repeat(257), vote_type: 'upvote' }, problem: 'binge_id must be at most 256 characters' },
      { name: 'an upper-case vote type', body: { content_slug: 'c', vote_type: 'UPVOTE' }, problem: 'vote_type must be one of "upvote", "downvote"' },
      { name: 'a vote type list', body: { content_slug: 'c', vote_type: ['upvote'] }, problem: 'vote_type must be one of "upvote", "downvote"' },
      { name: 'null feedback', body: { content_slug: 'c', vote_type: 'upvote', feedback: null }, problem: 'feedback must be a string' },
      { name: 'object feedback', body: { content_slug: 'c', vote_type: 'upvote', feedback: { text: 'x' } }, problem: 'feedback must be a string' },
    ])('answers 400 "Invalid parameters: <problem>" for $name', async ({ body, problem }) => {
      const reply = await vote(body);
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ msg: `Invalid parameters: ${problem}` });
    });

    it('answers 400 "Invalid parameters" for a body that is not JSON, and 405 for GET', async () => {
      const broken = await call(server.url, 'POST', '/api/v1/frob/record_vote/', { key, rawBody: '{"content_slug": ', headers: { 'content-type': 'application/json' } });
      expect(broken.status).toBe(400);
      expect(broken.json).toEqual({ msg: 'Invalid parameters: Invalid JSON body' });
      const get = await call(server.url, 'GET', '/api/v1/frob/record_vote/', { key });
      expect(get.status).toBe(405);
      expect(get.headers.allow).toBe('POST');
    });
  });
});

describe('REST rate limit around an answer', () => {
  let dataDir: string;
  let backend: OpenedBackend;
  let limiter: OpenedRateLimiter;
  let server: RunningHttpServer;
  let key: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-around-limit-'));
    const config = Config.parse({ dataDir, rateLimitPerMinute: 2 });
    backend = await openBackend(config, silentLogger);
    limiter = await openRateLimiter(config, silentLogger);
    await backend.admin!.createGuru({ slug: 'limited' });
    server = await startHttpServer({ backend, logger: silentLogger, host: '127.0.0.1', port: 0, limiter });
  });

  beforeEach(async () => {
    key = (await backend.admin!.createApiKey('limited')).api_key;
  });

  afterAll(async () => {
    await server?.close();
    await limiter?.close();
    await backend?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts progress polls against the end user\'s limit shared with asking', async () => {
    const progress = (user: string) => call(server.url, 'GET', `/api/v1/limited/answer-progress/?external_user_id=${user}`, { key });
    const ask = (user: string) => call(server.url, 'POST', '/api/v1/limited/answer/', { key, body: { question: 'anything', external_user_id: user } });
    expect((await ask('carol')).status).toBe(200);
    expect((await progress('carol')).status).toBe(200);
    const throttled = await progress('carol');
    expect(throttled.status).toBe(429);
    const seconds = Number(throttled.headers['retry-after']);
    expect(throttled.json).toEqual({ msg: `Request was throttled. Expected available in ${seconds} seconds.` });
    expect((await ask('carol')).status).toBe(429);
    expect((await progress('dave')).status).toBe(200);
  });

  it('throttles follow-up examples with 429 "Rate limit exceeded" in "error"', async () => {
    const examples = () => call(server.url, 'POST', '/api/v1/limited/follow-up/examples/', { key, body: { question_slug: 'x' } });
    expect((await examples()).status).toBe(404);
    expect((await examples()).status).toBe(404);
    const throttled = await examples();
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(throttled.json).toEqual({ error: 'Rate limit exceeded' });
  });

  it('throttles votes with 429 and the seconds to wait', async () => {
    const vote = () => call(server.url, 'POST', '/api/v1/limited/record_vote/', { key, body: { content_slug: 'x', vote_type: 'upvote' } });
    expect((await vote()).status).toBe(404);
    expect((await vote()).status).toBe(404);
    const throttled = await vote();
    expect(throttled.status).toBe(429);
    const seconds = Number(throttled.headers['retry-after']);
    expect(throttled.json).toEqual({ msg: `Request was throttled. Expected available in ${seconds} seconds.` });
  });
});
