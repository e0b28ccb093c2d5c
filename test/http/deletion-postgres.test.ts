/**
 * Deleting on PostgreSQL through the transports: after `DELETE {guru}/data-sources/`, a session's
 * `DELETE`, `guru-mcp sources-delete` and `guru-mcp guru delete`, no row of the database holds the
 * deleted text, as rest-delete-sources.test.ts and test/cli/deletion.test.ts check of the files of
 * the embedded store. One server for the file (postgres-suite.ts), one database for its tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';
import { runCli } from '../cli/run-cli.js';
import { onDatabase, postgresSuite, type FreshDatabase } from '../support/postgres-suite.js';
import { storedRowsInPostgres, tablesHoldingInPostgres } from '../support/stored-rows.js';
import { call } from './support.js';

/** No vowels: the index keeps them unstemmed, so the postings hold them as written. */
const SECRET = 'zqxjvkwpl';
const ASKED = 'vbnmqrtzk';
const KEPT = 'plvrtzgnd';

describe('deleting on PostgreSQL, through REST and the CLI', () => {
  const suite = postgresSuite();
  let dataDir: string;
  let database: FreshDatabase;
  let backend: OpenedBackend;
  let server: RunningHttpServer;
  let key: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-pg-delete-'));
    database = await suite.freshDatabase();
    backend = await openBackend(Config.parse({ dataDir, databaseUrl: database.url }), silentLogger);
    key = (await backend.admin!.createGuru({ slug: 'docs' })).api_key;
    server = await startHttpServer({
      backend,
      logger: silentLogger,
      host: '127.0.0.1',
      port: 0,
      limiter: await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 0 }), silentLogger),
    });
  });

  afterAll(async () => {
    await server?.close();
    await backend?.close();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const holding = (text: string) => tablesHoldingInPostgres(database.url, text);
  const rowsOf = (statement: string, params: readonly unknown[] = []) => onDatabase(database.url, async (sql) => (await sql.get<{ n: number }>(statement, params))!.n);

  /** Adds text sources through REST and waits until they are indexed; their ids. */
  async function added(guru: string, guruKey: string, texts: Record<string, string>): Promise<number[]> {
    const body = { text_sources: Object.entries(texts).map(([name, content]) => ({ name, content })) };
    const created = await call(server.url, 'POST', `/api/v1/${guru}/data-sources/`, { key: guruKey, body });
    expect(created.status).toBe(200);
    const ids = (created.json as Array<{ id: number }>).map((source) => source.id);
    await vi.waitFor(
      async () => {
        const listed = (await call(server.url, 'GET', `/api/v1/${guru}/data-sources/?page_size=100`, { key: guruKey })).json as { results: Array<{ id: number; status: string }> };
        expect(listed.results.filter((source) => ids.includes(source.id)).map((source) => source.status)).toEqual(ids.map(() => 'SUCCESS'));
      },
      { timeout: 30_000, interval: 50 },
    );
    return ids;
  }

  it('REST: a refused delete keeps every row; a delete leaves no row of the source, its passages or their postings', async () => {
    const [secret, kept] = await added('docs', key, { Secret: `The ${SECRET} opens the vault.`, Kept: `The ${KEPT} runs nightly.` });
    expect(await holding(SECRET)).toEqual(expect.arrayContaining(['data_sources', 'chunks', 'chunk_terms']));

    const refused = await call(server.url, 'DELETE', '/api/v1/docs/data-sources/', { key, body: { ids: [] } });
    expect(refused.status).toBe(400);
    expect(await storedRowsInPostgres(database.url, 'data_sources')).toBe(2);

    const deleted = await call(server.url, 'DELETE', '/api/v1/docs/data-sources/', { key, body: { ids: [secret] } });
    expect(deleted.status).toBe(200);
    expect(await holding(SECRET)).toEqual([]);
    expect(await rowsOf('SELECT count(*) AS n FROM chunks WHERE source_id = ?', [secret])).toBe(0);
    expect(await rowsOf('SELECT count(*) AS n FROM data_sources WHERE id = ?', [kept])).toBe(1);
    expect(await holding(KEPT)).toEqual(expect.arrayContaining(['data_sources', 'chunks']));
  });

  it("REST: a deleted session's questions and answers are gone, its tombstone keeps no text", async () => {
    const asked = await call(server.url, 'POST', '/api/v1/docs/answer/', { key, body: { question: `What runs nightly, ${ASKED}?`, stream: false } });
    expect(asked.status).toBe(200);
    const sessionId = (asked.json as { session_id: string }).session_id;
    expect(await holding(ASKED)).toContain('questions');

    const removed = await call(server.url, 'DELETE', `/api/v1/sessions/${sessionId}/delete/`, { key });
    expect(removed.status).toBe(200);
    expect(await holding(ASKED)).toEqual([]);
    expect(await rowsOf('SELECT count(*) AS n FROM questions WHERE binge_id = ?', [sessionId])).toBe(0);
  });

  it('CLI: sources-delete and guru delete --yes leave no row holding the text, the guru or its keys', async () => {
    const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir, '--database-url', database.url]);
    const cliKey = (await backend.admin!.createGuru({ slug: 'cli' })).api_key;
    const [gone, last] = await added('cli', cliKey, { Gone: `The ${SECRET} opens the vault.`, Last: `The ${ASKED} opens the gate.` });

    const deleted = await cli(['sources-delete', 'cli', String(gone)]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await holding(SECRET)).toEqual([]);
    expect(await holding(ASKED)).toEqual(expect.arrayContaining(['data_sources', 'chunks', 'chunk_terms']));

    const guruDeleted = await cli(['guru', 'delete', 'cli', '--yes']);
    expect(guruDeleted.code, guruDeleted.stderr).toBe(0);
    expect(await holding(ASKED)).toEqual([]);
    expect(await rowsOf("SELECT count(*) AS n FROM gurus WHERE slug = 'cli'")).toBe(0);
    expect(await rowsOf('SELECT count(*) AS n FROM data_sources WHERE id = ?', [last])).toBe(0);
    expect((await call(server.url, 'GET', '/api/v1/cli/data-sources/', { key: cliKey })).status).toBe(401);
  });
});
