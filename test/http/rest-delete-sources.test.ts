/**
 * `DELETE {guru}/data-sources/` over real HTTP: the hosted API's statuses and bodies (DESIGN.md,
 * "delete data sources"), bad and oversized bodies, garbage bodies that must never crash it, and
 * keys that reach only their own guru's sources.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';
import { storedRows } from '../support/stored-rows.js';
import { call } from './support.js';

const PATH = '/api/v1/docs/data-sources/';

describe('REST: deleting data sources', () => {
  let dataDir: string;
  let backend: OpenedBackend;
  let server: RunningHttpServer;
  let docsKey: string;
  let otherKey: string;
  let ids: number[];

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-delete-'));
    backend = await openBackend(Config.parse({ dataDir }), silentLogger);
    docsKey = (await backend.admin!.createGuru({ slug: 'docs' })).api_key;
    otherKey = (await backend.admin!.createGuru({ slug: 'other' })).api_key;
    server = await startHttpServer({
      backend,
      logger: silentLogger,
      host: '127.0.0.1',
      port: 0,
      limiter: await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 0 }), silentLogger),
    });
    const created = await call(server.url, 'POST', PATH, {
      key: docsKey,
      body: { text_sources: [{ name: 'Install', content: 'Run npm install widget.' }, { name: 'Billing', content: 'Invoices go out monthly.' }] },
    });
    ids = (created.json as Array<{ id: number }>).map((source) => source.id);
  });

  afterEach(async () => {
    await server.close();
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const listed = async (guru: string, key: string) =>
    ((await call(server.url, 'GET', `/api/v1/${guru}/data-sources/`, { key })).json as { results: Array<{ id: number }> }).results.map((s) => s.id);

  it('deletes the sources named and answers 200 with the hosted message, with or without the trailing slash', async () => {
    const reply = await call(server.url, 'DELETE', PATH, { key: docsKey, body: { ids: [ids[0]] } });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ msg: 'Data sources deleted successfully' });
    expect(await listed('docs', docsKey)).toEqual([ids[1]]);
    const again = await call(server.url, 'DELETE', '/api/v1/docs/data-sources', { key: docsKey, body: { ids: [ids[0], ids[1], 999_999] } });
    expect(again.status).toBe(200);
    expect(await listed('docs', docsKey)).toEqual([]);
  });

  it.each([
    { name: 'no body', body: undefined, problem: 'ids is required' },
    { name: 'no ids', body: {}, problem: 'ids is required' },
    { name: 'an empty list', body: { ids: [] }, problem: 'ids must have at least 1 item' },
    { name: 'ids of the wrong type', body: { ids: ['one'] }, problem: 'ids[0] must be a number' },
    { name: 'ids that are not a list', body: { ids: 7 }, problem: 'ids must be an array of numbers' },
    { name: 'more than 10,000 ids', body: { ids: Array.from({ length: 10_001 }, (_, i) => i + 1) }, problem: 'ids must have at most 10000 items' },
    { name: 'a body that is no object', body: [1, 2], problem: 'The request must be a JSON object' },
  ])('$name -> 400 "Invalid request parameters: $problem", nothing deleted', async ({ body, problem }) => {
    const reply = await call(server.url, 'DELETE', PATH, { key: docsKey, body });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ msg: `Invalid request parameters: ${problem}` });
    expect(storedRows(dataDir, 'data_sources')).toBe(2);
  });

  it('answers malformed JSON with 400, and a body over 256 KiB with 413, before any work', async () => {
    const malformed = await call(server.url, 'DELETE', PATH, { key: docsKey, rawBody: '{"ids": [', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ msg: 'Invalid request parameters: Invalid JSON body' });
    const huge = await call(server.url, 'DELETE', PATH, { key: docsKey, body: { ids: [ids[0]], padding: 'x'.repeat(300 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.json).toEqual({ msg: 'Request body too large (limit 256 KiB)' });
    expect(storedRows(dataDir, 'data_sources')).toBe(2);
  });

  it('answers every garbage body with 400 or 200, never a crash, and deletes nothing it was not given (fuzzing)', async () => {
    let seed = 27;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    // No id of a source held is among them: whatever is sent, nothing may go.
    const values = [null, true, -1, 0, 1.5, 2 ** 53, 3_000_000, 'x', '1', [], {}, [null], ['🦄'], { ids: null }, 1e308, -0];
    for (let round = 0; round < 60; round += 1) {
      const pick = () => values[Math.floor(random() * values.length)];
      const body = random() < 0.5 ? { ids: Array.from({ length: Math.floor(random() * 4) }, pick) } : { ids: pick(), [String(pick())]: pick() };
      const reply = await call(server.url, 'DELETE', PATH, { key: docsKey, body });
      expect([200, 400]).toContain(reply.status);
      expect((reply.json as { msg: string }).msg).toMatch(/^(Data sources deleted successfully|Invalid request parameters)/);
    }
    const raw = ['', 'null', '"ids"', '[]', '{"ids":[1e999]}', '{"ids":[3000000,]}', '\u0000', '{"ids":[9007199254740993]}'];
    for (const rawBody of raw) {
      const reply = await call(server.url, 'DELETE', PATH, { key: docsKey, rawBody, headers: { 'content-type': 'application/json' } });
      expect([200, 400]).toContain(reply.status);
    }
    expect(storedRows(dataDir, 'data_sources')).toBe(2);
  });

  it("never deletes another guru's sources: its own key is refused on the other guru's path, and the other's ids are passed over", async () => {
    const theirs = (await call(server.url, 'POST', '/api/v1/other/data-sources/', { key: otherKey, body: { text_sources: [{ name: 'T', content: 'Theirs.' }] } }))
      .json as Array<{ id: number }>;
    const wrongKey = await call(server.url, 'DELETE', '/api/v1/other/data-sources/', { key: docsKey, body: { ids: [theirs[0]!.id] } });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.json).toEqual({ msg: 'Invalid API key' });
    const noKey = await call(server.url, 'DELETE', PATH, { body: { ids: ids } });
    expect(noKey.status).toBe(401);
    const passedOver = await call(server.url, 'DELETE', PATH, { key: docsKey, body: { ids: [theirs[0]!.id] } });
    expect(passedOver.status).toBe(200);
    expect(await listed('other', otherKey)).toEqual([theirs[0]!.id]);
    expect(await listed('docs', docsKey)).toHaveLength(2);
  });

  it('answers 404 with the operation\'s message for a guru that does not exist', async () => {
    const reply = await call(server.url, 'DELETE', '/api/v1/nope/data-sources/', { key: docsKey, body: { ids: [1] } });
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ msg: 'Guru type nope not found' });
  });
});
