// The engine as the benchmarks drive it: opened on a fresh data directory, waited on, counted.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout } from 'node:timers';
import { dist } from './common.js';

/** `default`, or `{ concurrency, perHost }` from `C/P`. */
export function parseLimits(label) {
  if (label === 'default') return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(label);
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
    throw new Error(`GURU_BENCH_MANUAL_LIMITS: ${label} is neither "default" nor CONCURRENCY/PER_HOST (e.g. 8/8)`);
  }
  return { concurrency: Number(match[1]), perHost: Number(match[2]) };
}

/**
 * The local engine on a fresh data directory that may fetch from 127.0.0.1; `limits` from
 * parseLimits; with `databaseUrl`, its store is that PostgreSQL database (GURU_DATABASE_URL).
 */
export async function openLocalBackend(dataDir, limits, databaseUrl) {
  const { loadConfig } = await dist('config.js');
  const { silentLogger } = await dist('log.js');
  if (limits === undefined) {
    const { openBackend } = await dist('compose.js');
    return openBackend(loadConfig({ flags: { dataDir, allowPrivateNetwork: true, ...(databaseUrl === undefined ? {} : { databaseUrl }) }, env: {} }), silentLogger);
  }
  if (databaseUrl !== undefined) throw new Error('openLocalBackend: processing limits are for the embedded store only');
  // openBackend takes no processing limits; these runs open the engine the same way, with them.
  const { LocalEngine } = await dist('engine/local-engine.js');
  const engine = await LocalEngine.open({ dataDir, logger: silentLogger, allowPrivateNetwork: true, processing: limits });
  return { kind: 'local', assistant: engine, admin: engine, close: () => engine.close() };
}

/** The engine's own idle signal when it offers one; otherwise the data-source statuses. */
export async function waitUntilProcessed(assistant, slug) {
  if (typeof assistant.whenIdle === 'function') {
    await assistant.whenIdle();
    return;
  }
  for (;;) {
    const statuses = await countStatuses(assistant, slug);
    if ((statuses.NOT_PROCESSED ?? 0) === 0) return;
    await new Promise((done) => setTimeout(done, 100));
  }
}

export async function countStatuses(assistant, slug) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const source of await allSources(assistant, slug)) counts[source.status] = (counts[source.status] ?? 0) + 1;
  return counts;
}

export async function allSources(assistant, slug) {
  const sources = [];
  for (let page = 1; ; page += 1) {
    const listing = await assistant.listDataSources(slug, { page, page_size: 1000 });
    sources.push(...listing.results);
    if (listing.results.length === 0 || page * listing.page_size >= listing.count) return sources;
  }
}

function fileSize(path) {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export const databaseBytes = (dataDir) => ['guru.sqlite', 'guru.sqlite-wal', 'guru.sqlite-shm'].reduce((sum, name) => sum + fileSize(join(dataDir, name)), 0);

/** Chunks and stored Markdown, read from the database file beside the engine (WAL lets a reader in). */
export async function storedCounts(dataDir) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const { chunks } = db.prepare('SELECT count(*) AS chunks FROM chunks').get();
    const { bytes } = db.prepare('SELECT coalesce(sum(length(CAST(content AS BLOB))), 0) AS bytes FROM data_sources').get();
    return { chunks, markdownBytes: bytes };
  } finally {
    db.close();
  }
}
