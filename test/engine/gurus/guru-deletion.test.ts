/**
 * Deleting a guru in the local engine: everything it holds goes (rows of every table, end-user
 * records, short-lived state, the bytes in the data directory's files), work under way for it
 * (a crawl, a source being read) stops without bringing anything back, its keys stop opening
 * the REST API, and another guru keeps all of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRateLimiter } from '../../../src/compose.js';
import { Config } from '../../../src/config.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { startHttpServer, type RunningHttpServer } from '../../../src/http/server.js';
import { createLogger, silentLogger } from '../../../src/log.js';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';
import { call } from '../../http/support.js';
import { onEachStore, type EngineDatabase } from '../../support/engine-stores.js';

/** No vowels: stemming leaves it whole in the full-text index, so its bytes are what is looked for. */
const MARKER = 'zqxjvkwpl';
/** What the rate limiter and other short-lived state key by: the guru's slug. */
const SLUG = 'doomed';

/** Tables with a row per guru, or per something of a guru, and how they are reached from the guru's id. */
const ROWS_OF_GURU: Record<string, string> = {
  gurus: 'id = ?',
  api_keys: 'guru_id = ?',
  data_sources: 'guru_id = ?',
  chunks: 'guru_id = ?',
  links: 'guru_id = ?',
  jobs: 'source_id IN (SELECT id FROM data_sources WHERE guru_id = ?)',
  binges: 'guru_id = ?',
  questions: 'guru_id = ?',
  searches: 'guru_id = ?',
  crawls: 'guru_id = ?',
  integrations: 'guru_id = ?',
  guru_settings: 'guru_id = ?',
};

describe('deleting a guru', () => onEachStore((store) => {
  let dataDir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;
  let server: RunningHttpServer;
  let site: LoopbackServer;
  let release: () => void;
  /** What the engine logged as errors: a write for the deleted guru after it went (a search logged late) shows here. */
  const errors: string[] = [];

  const filesHolding = (text: string) => database.holding(text);

  async function rowsOf(guruId: number): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const [table, where] of Object.entries(ROWS_OF_GURU)) {
      counts[table] = (await database.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, [guruId]))!.n;
    }
    return counts;
  }

  const guruIdOf = async (slug: string): Promise<number> => (await database.get<{ id: number }>('SELECT id FROM gurus WHERE slug = ?', [slug]))!.id;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-delete-guru-'));
    database = await store.database(dataDir);
    const released = new Promise<void>((resolve) => (release = resolve));
    site = await startLoopbackServer({
      '/': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html><body><a href="/slow">slow</a></body></html>');
      },
      '/slow': async (_request, response) => {
        await released;
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(`<html><head><title>Slow</title></head><body><main><h1>Slow</h1><p>The ${MARKER} came back.</p></main></body></html>`);
      },
    });
    errors.length = 0;
    engine = await LocalEngine.open({ dataDir, ...database.settings, allowPrivateNetwork: true, logger: createLogger('error', (line) => errors.push(line)) });
    server = await startHttpServer({
      backend: { kind: 'local', assistant: engine, admin: engine },
      logger: silentLogger,
      host: '127.0.0.1',
      port: 0,
      limiter: await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 1000 }), silentLogger),
    });
  });

  afterEach(async () => {
    release();
    await server.close();
    await engine.close();
    await site.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('removes everything it holds, stops its work, and leaves the other guru whole', async () => {
    const { api_key: key } = await engine.createGuru({ slug: SLUG });
    const { api_key: keptKey } = await engine.createGuru({ slug: 'kept' });
    await engine.createApiKey(SLUG);
    await engine.updateGuruSettings(SLUG, { speech_provider: true });
    await engine.createDataSources(SLUG, { text_sources: [{ name: 'Secret', content: `# Vault\n\nThe ${MARKER} opens the [vault](https://example.com/${MARKER}).` }] });
    await engine.createDataSources('kept', { text_sources: [{ name: 'Kept', content: 'The zorblax runs nightly.' }] });
    await engine.whenIdle();
    // A source still being read, and a crawl still running, when the guru goes.
    await engine.createDataSources(SLUG, { website_urls: [site.url('/slow')] });
    await engine.startCrawl(SLUG, { url: site.url('/'), ignore_query_params: true });

    const asked = await call(server.url, 'POST', `/api/v1/${SLUG}/answer/`, {
      key,
      body: { question: `What does the ${MARKER} open?`, external_user_id: 'u1', log_files: [{ name: 'a.log', data: `error ${MARKER}\n` }] },
    });
    expect(asked.status).toBe(200);
    const answer = asked.json as { slug: string; session_id: string };
    await engine.recordVote(SLUG, { content_slug: answer.slug, vote_type: 'downvote', feedback: `no ${MARKER}` });
    await engine.semanticSearch(SLUG, { question: `where is ${MARKER}`, external_user_id: 'u1' });
    await engine.upsertProfiles(SLUG, { users: [{ external_user_id: 'u1', memory: { note: MARKER } }] });
    await engine.upsertProfiles('kept', { users: [{ external_user_id: 'u1', memory: { note: 'kept' } }] });
    const guruId = await guruIdOf(SLUG);
    expect(await filesHolding(MARKER)).not.toEqual([]);
    expect(await filesHolding(`${SLUG}:`)).not.toEqual([]);

    const deleted = await engine.deleteGuru(SLUG);
    expect(deleted).toEqual({ slug: SLUG, deleted: { data_sources: 2, sessions: 1, questions: 1, crawls: 1, api_keys: 2 } });
    release();
    await engine.whenIdle();

    const rows = await rowsOf(guruId);
    expect(Object.values(rows).every((n) => n === 0), JSON.stringify(rows)).toBe(true);
    expect(await filesHolding(MARKER)).toEqual([]);
    expect(await filesHolding(`${SLUG}:`)).toEqual([]);
    const refused = await call(server.url, 'GET', `/api/v1/${SLUG}/data-sources/`, { key });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual({ msg: 'Invalid API key' });
    await expect(engine.listDataSources(SLUG, { page: 1, page_size: 10 })).rejects.toMatchObject({ status: 404 });

    const kept = await call(server.url, 'GET', '/api/v1/kept/data-sources/', { key: keptKey });
    expect((kept.json as { count: number }).count).toBe(1);
    expect((await engine.semanticSearch('kept', { question: 'zorblax' })).total_sources).toBe(1);
    expect((await engine.getEndUserData('kept', 'u1', { limit: 10, offset: 0 })).data.profile).toHaveLength(1);

    expect(errors).toEqual([]);

    // A guru made again under the slug starts empty, with a new id.
    await engine.createGuru({ slug: SLUG });
    expect(await guruIdOf(SLUG)).toBeGreaterThan(guruId);
    expect((await engine.getEndUserData(SLUG, 'u1', { limit: 10, offset: 0 })).data.profile).toEqual([]);
    expect((await engine.listDataSources(SLUG, { page: 1, page_size: 10 })).count).toBe(0);
  });
}));
