/**
 * The end-user routes over real HTTP: the spec's paths, statuses and bodies,
 * what a key of another guru gets (Forbidden only where the spec lists it), and
 * the 500 of an unreadable memory store, caused for real by a corrupt file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend, type OpenedRateLimiter } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { createLogger, silentLogger, type Logger } from '../../src/log.js';
import { RECORDS_FILE } from '../../src/state/keyv.js';
import { call } from './support.js';

const USER = 'b7c1e0f4-user';
const DATA = `/api/v1/docs/end-users/${USER}/data/`;

describe('REST: end users', () => {
  let dataDir: string;
  let backend: OpenedBackend;
  let server: RunningHttpServer;
  let base: string;
  let docsKey: string;
  let otherKey: string;
  let limiter: OpenedRateLimiter;

  async function start({ logger = silentLogger, rateLimitPerMinute = 0 }: { logger?: Logger; rateLimitPerMinute?: number } = {}) {
    backend = await openBackend(Config.parse({ dataDir }), logger);
    limiter = await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute }), logger);
    server = await startHttpServer({ backend, logger, host: '127.0.0.1', port: 0, limiter });
    base = server.url;
  }

  async function stop() {
    await server.close();
    await limiter.close();
    await backend.close();
  }

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-endusers-'));
    await start();
    docsKey = (await backend.admin!.createGuru({ slug: 'docs' })).api_key;
    otherKey = (await backend.admin!.createGuru({ slug: 'other' })).api_key;
  });

  afterEach(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads the bundle at the spec path with limit and offset from the query, 100 records by default', async () => {
    await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: 'anything', external_user_id: USER } });
    const reply = await call(base, 'GET', DATA, { key: docsKey });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      external_user_id: USER,
      data: { searches: [{ query: 'anything', selected_labels: [] }], page: { limit: 100, offset: 0 } },
    });
    const paged = await call(base, 'GET', `${DATA}?limit=1&offset=1`, { key: docsKey });
    expect(paged.json).toMatchObject({ data: { searches: [], page: { limit: 1, offset: 1 } } });
    const bad = await call(base, 'GET', `${DATA}?limit=abc`, { key: docsKey });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ msg: 'Invalid request parameters: limit must be a number' });
  });

  it('answers 401 without a key, 401 for the key of another guru on data routes, 403 Forbidden on profiles, 404 for an unknown guru', async () => {
    expect((await call(base, 'GET', DATA)).json).toEqual({ msg: 'Invalid API key' });
    for (const method of ['GET', 'DELETE'] as const) {
      const reply = await call(base, method, DATA, { key: otherKey });
      expect(reply.status, method).toBe(401);
      expect(reply.json, method).toEqual({ msg: 'Invalid API key' });
    }
    const profiles = await call(base, 'POST', '/api/v1/docs/profiles/', { key: otherKey, body: { users: [{ external_user_id: USER, memory: {} }] } });
    expect(profiles.status).toBe(403);
    expect(profiles.json).toEqual({ msg: 'Forbidden' });
    const unknown = await call(base, 'POST', '/api/v1/nope/profiles/', { key: docsKey, body: { users: [] } });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ msg: 'Guru type nope not found' });
  });

  it('answers 500 with no data when the memory store file is corrupt', async () => {
    await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: 'anything', external_user_id: USER } });
    await stop();
    for (const suffix of ['-wal', '-shm']) rmSync(join(dataDir, `${RECORDS_FILE}${suffix}`), { force: true });
    writeFileSync(join(dataDir, RECORDS_FILE), Buffer.alloc(8192, 'garbage '));
    await start();

    const reply = await call(base, 'GET', DATA, { key: docsKey });
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({ msg: 'Memory store could not be read' });
    const saved = await call(base, 'POST', '/api/v1/docs/profiles/', { key: docsKey, body: { users: [{ external_user_id: USER, memory: {} }] } });
    expect(saved.status).toBe(500);
    expect(saved.json).toEqual({ error: 'Internal server error while saving profiles' });
  });

  it('upserts profiles: 200 when all are saved, 400 with details and users_results when some fail', async () => {
    const ok = await call(base, 'POST', '/api/v1/docs/profiles/', { key: docsKey, body: { users: [{ external_user_id: USER, memory: { plan: 'pro' } }] } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({
      status: 'success',
      total_users: 1,
      processed_users: 1,
      users_results: [{ user_index: 0, external_user_id: USER, success: true, errors: [] }],
    });
    const some = await call(base, 'POST', '/api/v1/docs/profiles/', {
      key: docsKey,
      body: { users: [{ external_user_id: 'a' }, { external_user_id: 'b', memory: { x: 1 } }] },
    });
    expect(some.status).toBe(400);
    expect(some.json).toEqual({
      error: 'Failed to process some users',
      details: ['User 0: memory is required'],
      users_results: [
        { user_index: 0, external_user_id: 'a', success: false, errors: ['memory is required'] },
        { user_index: 1, external_user_id: 'b', success: true, errors: [] },
      ],
    });
    const tooMany = await call(base, 'POST', '/api/v1/docs/profiles/', {
      key: docsKey,
      body: { users: Array.from({ length: 1001 }, (_, i) => ({ external_user_id: `u${i}`, memory: {} })) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json).toEqual({ msg: 'Invalid request parameters: users must have at most 1000 items' });
  });

  it('refuses oversized and malformed profile requests and ids with 400, never 500', async () => {
    const profiles = (rawBody: string) =>
      call(base, 'POST', '/api/v1/docs/profiles/', { key: docsKey, rawBody, headers: { 'content-type': 'application/json' } });
    const broken = await profiles('{"users": [');
    expect(broken.status).toBe(400);
    expect(broken.json).toEqual({ msg: 'Invalid request parameters: Invalid JSON body' });
    const notList = await profiles('{"users": "everyone"}');
    expect(notList.status).toBe(400);
    expect(notList.json).toEqual({ msg: 'Invalid request parameters: users must be an array of objects' });
    const notObject = await profiles('[1, 2]');
    expect(notObject.status).toBe(400);

    // Nested too deeply to serialize: far past the 16 KiB cap, refused for that user alone.
    const depth = 200_000;
    const deep = `{"users": [{"external_user_id": "deep", "memory": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}, {"external_user_id": "${'x'.repeat(257)}", "memory": {}}]}`;
    const refused = await profiles(deep);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      error: 'Failed to process some users',
      users_results: [
        { user_index: 0, success: false, errors: ['memory must be at most 16 KiB as JSON'] },
        { user_index: 1, success: false, errors: ['external_user_id must be at most 256 characters'] },
      ],
    });

    const longId = await call(base, 'DELETE', `/api/v1/docs/end-users/${'x'.repeat(257)}/data/`, { key: docsKey });
    expect(longId.status).toBe(400);
    const farOffset = await call(base, 'GET', `${DATA}?offset=1000001`, { key: docsKey });
    expect(farOffset.status).toBe(400);
    expect(farOffset.json).toEqual({ msg: 'Invalid request parameters: offset must be at most 1000000' });
  });

  it('erases at the DELETE path and answers the counts', async () => {
    await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: 'anything', external_user_id: USER } });
    const reply = await call(base, 'DELETE', DATA, { key: docsKey });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      external_user_id: USER,
      deleted: { questions: 0, rejected_questions: 0, conversations: 0, searches: 1, profile: 0, memories: 0, attachments: 0 },
    });
  });

  it('leaves the erased end user\'s id in no file of the data directory (rate limits included) and in no log line', async () => {
    await stop();
    const logLines: string[] = [];
    await start({ logger: createLogger('debug', (line) => logLines.push(line)), rateLimitPerMinute: 120 });
    const id = 'erase-me-4f81c2d7@example.com';
    const data = `/api/v1/docs/end-users/${encodeURIComponent(id)}/data/`;
    const added = await call(base, 'POST', '/api/v1/docs/data-sources/', { key: docsKey, body: { text_sources: [{ name: 'Dial', content: 'The wibble dial is turned clockwise to calibrate it.' }] } });
    expect(added.status).toBe(200);
    const calls = [
      call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: 'wibble dial', external_user_id: id } }),
      call(base, 'POST', '/api/v1/docs/answer/', { key: docsKey, body: { question: 'How is the wibble dial calibrated?', external_user_id: id } }),
      call(base, 'GET', `/api/v1/docs/answer-progress/?external_user_id=${encodeURIComponent(id)}`, { key: docsKey }),
      call(base, 'POST', '/api/v1/docs/sessions/', { key: docsKey, body: { external_user_id: id } }),
      call(base, 'POST', '/api/v1/docs/profiles/', { key: docsKey, body: { users: [{ external_user_id: id, memory: { plan: 'gold' } }] } }),
      call(base, 'GET', data, { key: docsKey }),
    ];
    for (const reply of await Promise.all(calls)) expect(reply.status, reply.text).toBe(200);

    const erased = await call(base, 'DELETE', data, { key: docsKey });
    expect(erased.status).toBe(200);

    const needle = Buffer.from(id);
    const holding = readdirSync(dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((path) => readFileSync(path).includes(needle));
    expect(holding).toEqual([]);
    // The erase request was charged to the end user's window like any other; both are gone from the rate limiter's store.
    const state = new Database(join(dataDir, 'state.sqlite'), { readonly: true });
    try {
      const keys = (state.prepare('SELECT key FROM keyv').all() as { key: string }[]).map(({ key }) => key);
      expect(keys.filter((key) => key.startsWith('docs:user:'))).toEqual([]);
      expect(keys.filter((key) => key.startsWith('docs:all:'))).toHaveLength(1);
    } finally {
      state.close();
    }
    expect(logLines.filter((line) => line.includes(id) || line.includes(encodeURIComponent(id)))).toEqual([]);
  });
});
