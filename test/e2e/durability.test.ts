/**
 * Killing `guru-mcp serve` in the middle of ingestion loses nothing: every source
 * stays listed, the ones not yet indexed stay queued, and a new `serve` on the same
 * data directory, or one that was running beside it all along, takes over the dead
 * process's leased jobs at once and finishes them.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CreatedDataSource, CreatedGuru, DataSourceListResponse, SemanticSearchResponse, type DataSource } from '../../src/core/schemas.js';
import { cleanEnv, runCli } from '../cli/run-cli.js';
import { BIN } from '../global-setup.js';
import { startLoopbackServer, type LoopbackServer, type Route } from '../support/loopback-server.js';

const PAGE_COUNT = 60;
/** Each page answers this late, so that the whole batch takes seconds and the kill lands mid-way. */
const PAGE_DELAY_MS = 150;
const WAIT_LIMIT_MS = 30_000;
/**
 * How long a surviving server may take to finish the work of a killed one. Before, it waited for
 * the dead process's leases to run out (60 s); now it takes its jobs over within a second or so.
 */
const TAKEOVER_LIMIT_MS = 15_000;
/** The first server is killed once this many pages are indexed: about a quarter of the way. */
const KILL_AFTER_INDEXED = PAGE_COUNT / 4;

/**
 * A made-up word per page (`vorlaax`, `vorlabx`, ...): a search for it can only find that page.
 * The final x keeps the Porter stemmer from folding two of them into one (vorlaae and vorlaas would both be vorlaa).
 */
const wordOf = (index: number): string =>
  `vorl${String.fromCharCode(97 + Math.floor(index / 26))}${String.fromCharCode(97 + (index % 26))}x`;
const pathOf = (index: number): string => `/manual/page-${String(index).padStart(2, '0')}.html`;
const titleOf = (index: number): string => `Durable page ${index}: the ${wordOf(index)} setting`;

function pageHtml(index: number): string {
  const word = wordOf(index);
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${titleOf(index)}</title></head>
<body>
  <nav><a href="/manual/">Manual</a></nav>
  <main>
    <h1>${titleOf(index)}</h1>
    <p>The ${word} setting controls how page ${index} of the manual behaves when the service restarts.
       Set ${word} in the configuration file before the first start; the default suits most installations.</p>
    <h2>Changing ${word}</h2>
    <p>Stop the service, edit the value of ${word}, and start it again. Nothing that was queued is lost,
       because every pending piece of work is kept in the database until it is done.</p>
  </main>
</body>
</html>`;
}

type Phase = 'first server' | 'second server';

interface Site {
  readonly server: LoopbackServer;
  /** Page paths fetched while each server was running, in arrival order. */
  readonly fetched: Record<Phase, string[]>;
  phase: Phase;
}

async function startSite(): Promise<Site> {
  const fetched: Record<Phase, string[]> = { 'first server': [], 'second server': [] };
  const routes: Record<string, Route> = {};
  const site = { fetched, phase: 'first server' as Phase, server: undefined as unknown as LoopbackServer };
  for (let index = 0; index < PAGE_COUNT; index += 1) {
    routes[pathOf(index)] = async (request, response) => {
      fetched[site.phase].push(request.url ?? '');
      await sleep(PAGE_DELAY_MS);
      // The server that asked may have been killed meanwhile.
      if (response.destroyed) return;
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(index));
    };
  }
  site.server = await startLoopbackServer(routes);
  return site;
}

interface Served {
  readonly child: ChildProcess;
  readonly api: string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
}

/** Starts `serve` on a free loopback port, allowed to fetch from loopback and without a rate limit. */
function serve(dataDir: string, started: ChildProcess[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir], {
    env: cleanEnv({ GURU_ALLOW_PRIVATE_NETWORK: '1', GURU_RATE_LIMIT_PER_MINUTE: '0' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within ${WAIT_LIMIT_MS} ms:\n${stderr}`)), WAIT_LIMIT_MS);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ child, api: `${match[1]!}/api/v1`, stderr: () => stderr });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening:\n${stderr}`));
    });
  });
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill(signal);
  await exited;
}

async function listSources(api: string, apiKey: string): Promise<DataSource[]> {
  const response = await fetch(`${api}/demo/data-sources/?page_size=1000`, { headers: { 'x-api-key': apiKey } });
  expect(response.status).toBe(200);
  const listing = DataSourceListResponse.parse(await response.json());
  expect(listing.count).toBe(listing.results.length);
  return listing.results;
}

/** Polls the listing until `done` holds; fails at once on a failed source, and after the wait limit. */
async function pollSources(
  api: string,
  apiKey: string,
  done: (sources: DataSource[]) => boolean,
  limitMs = WAIT_LIMIT_MS,
): Promise<DataSource[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const sources = await listSources(api, apiKey);
    const failed = sources.filter((source) => source.status === 'FAIL');
    if (failed.length > 0) throw new Error(`${failed.length} sources failed, e.g. ${failed[0]!.url}: ${failed[0]!.error}`);
    if (done(sources)) return sources;
    if (Date.now() > deadline) throw new Error(`gave up after ${limitMs} ms; statuses: ${JSON.stringify(countByStatus(sources))}`);
    await sleep(25);
  }
}

function countByStatus(sources: readonly { status: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of sources) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

interface StoredSource {
  readonly id: number;
  readonly url: string;
  readonly title: string | null;
  readonly status: string;
  readonly error: string;
  readonly chunks: number;
  readonly jobs: number;
  readonly lease_owner: string | null;
}

/** What the database file holds while no process has it open. */
function readDatabase(dataDir: string): StoredSource[] {
  const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare<[], StoredSource>(
        `SELECT s.id, s.url, s.title, s.status, s.error,
                (SELECT count(*) FROM chunks c WHERE c.source_id = s.id) AS chunks,
                (SELECT count(*) FROM jobs j WHERE j.source_id = s.id) AS jobs,
                (SELECT j.lease_owner FROM jobs j WHERE j.source_id = s.id) AS lease_owner
         FROM data_sources s JOIN gurus g ON g.id = s.guru_id
         WHERE g.slug = 'demo' ORDER BY s.id`,
      )
      .all();
  } finally {
    db.close();
  }
}

describe('guru-mcp serve killed during ingestion (built CLI)', () => {
  let dataDir: string;
  let site: Site | undefined;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-mcp-e2e-durability-'));
  });

  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => stop(child, 'SIGKILL')));
    await site?.server.close();
    site = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes every unfinished source after a restart, fetching only what was not indexed', { timeout: 90_000 }, async () => {
    site = await startSite();
    const urls = Array.from({ length: PAGE_COUNT }, (_, index) => site!.server.url(pathOf(index)));
    const indexOfUrl = new Map(urls.map((url, index) => [url, index]));

    const created = await runCli(['guru', 'create', 'demo', '--json', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    const { api_key: apiKey } = CreatedGuru.parse(JSON.parse(created.stdout));

    // First server: accept the batch, then die with some pages indexed and others queued or in flight.
    const first = await serve(dataDir, children);
    const posted = await fetch(`${first.api}/demo/data-sources/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ website_urls: urls }),
    });
    expect(posted.status).toBe(200);
    const accepted = ((await posted.json()) as unknown[]).map((item) => CreatedDataSource.parse(item));
    expect(accepted.map((item) => [item.url, item.status])).toEqual(urls.map((url) => [url, 'success']));

    const before = await pollSources(first.api, apiKey, (sources) => (countByStatus(sources).SUCCESS ?? 0) >= KILL_AFTER_INDEXED);
    expect(before).toHaveLength(PAGE_COUNT);
    const firstPid = first.child.pid!;
    await stop(first.child, 'SIGKILL');
    site.phase = 'second server';

    // The database as the dead process left it: every source, each either indexed or still queued.
    const stored = readDatabase(dataDir);
    expect(stored.map((source) => source.url).sort()).toEqual([...urls].sort());
    expect(new Set(stored.map((source) => source.id)).size).toBe(PAGE_COUNT);
    const indexed = stored.filter((source) => source.status === 'SUCCESS');
    const unfinished = stored.filter((source) => source.status !== 'SUCCESS');
    expect(indexed.length).toBeGreaterThan(0);
    expect(unfinished.length).toBeGreaterThan(0);
    for (const source of indexed) {
      expect(source).toMatchObject({ title: titleOf(indexOfUrl.get(source.url)!), error: '', jobs: 0 });
      expect(source.chunks).toBeGreaterThan(0);
    }
    for (const source of unfinished) expect(source).toMatchObject({ status: 'NOT_PROCESSED', error: '', chunks: 0, jobs: 1 });
    // Some jobs were being read when the process died; their leases still name it.
    const leased = unfinished.filter((source) => source.lease_owner !== null);
    expect(leased.length).toBeGreaterThan(0);
    for (const source of leased) expect(source.lease_owner).toContain(`/${firstPid}/`);

    // Second server: takes the dead process's leases over at once (it says so; they would
    // otherwise hold until they ran out) and finishes everything.
    const second = await serve(dataDir, children);
    const after = await pollSources(second.api, apiKey, (sources) => sources.every((source) => source.status === 'SUCCESS'));
    expect(second.stderr()).toMatch(/took over work left by a stopped process/);

    expect(after).toHaveLength(PAGE_COUNT);
    expect(new Set(after.map((source) => source.id))).toEqual(new Set(stored.map((source) => source.id)));
    expect(new Set(after.map((source) => source.url)).size).toBe(PAGE_COUNT);
    for (const source of after) {
      expect(source).toMatchObject({ status: 'SUCCESS', error: '', title: titleOf(indexOfUrl.get(source.url!)!) });
    }

    // The second server fetched every page that was not indexed, and none that was.
    const fetchedBySecond = new Set(site.fetched['second server']);
    const pathOfSource = (source: StoredSource): string => new URL(source.url).pathname;
    expect(unfinished.map(pathOfSource).filter((path) => !fetchedBySecond.has(path))).toEqual([]);
    expect(indexed.map(pathOfSource).filter((path) => fetchedBySecond.has(path))).toEqual([]);
    expect(site.fetched['second server']).toHaveLength(unfinished.length);

    // A page that was in flight when the first server died is searchable now.
    const resumed = indexOfUrl.get(leased[0]!.url)!;
    const search = await fetch(`${second.api}/demo/semantic-search/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ question: `How do I change ${wordOf(resumed)}?` }),
    });
    expect(search.status).toBe(200);
    const found = SemanticSearchResponse.parse(await search.json());
    expect(found.sources[0]?.title).toBe(titleOf(resumed));

    const afterStore = readDatabaseWhileOpen(dataDir);
    expect(afterStore).toEqual({ jobs: 0, sources: PAGE_COUNT });
  });

  it('lets a server running beside the killed one finish its jobs within seconds', { timeout: 90_000 }, async () => {
    site = await startSite();
    const urls = Array.from({ length: PAGE_COUNT }, (_, index) => site!.server.url(pathOf(index)));

    const created = await runCli(['guru', 'create', 'demo', '--json', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    const { api_key: apiKey } = CreatedGuru.parse(JSON.parse(created.stdout));

    // Two servers on one data directory, as two IDE windows would run them; the batch goes to the first.
    const [first, survivor] = await Promise.all([serve(dataDir, children), serve(dataDir, children)]);
    const posted = await fetch(`${first.api}/demo/data-sources/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ website_urls: urls }),
    });
    expect(posted.status).toBe(200);
    await pollSources(first.api, apiKey, (sources) => (countByStatus(sources).SUCCESS ?? 0) >= KILL_AFTER_INDEXED);
    await stop(first.child, 'SIGKILL');

    // The survivor finishes everything, the jobs the killed server held included, well before
    // their leases would have run out.
    const after = await pollSources(survivor.api, apiKey, (sources) => sources.every((source) => source.status === 'SUCCESS'), TAKEOVER_LIMIT_MS);
    expect(after).toHaveLength(PAGE_COUNT);
    expect(survivor.stderr()).toMatch(/took over work left by a stopped process/);
    expect(readDatabaseWhileOpen(dataDir)).toEqual({ jobs: 0, sources: PAGE_COUNT });
  });
});

/** Counts that a reader may take while a server holds the database (WAL lets readers in). */
function readDatabaseWhileOpen(dataDir: string): { jobs: number; sources: number } {
  const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const jobs = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM jobs').get()!.n;
    const sources = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM data_sources').get()!.n;
    return { jobs, sources };
  } finally {
    db.close();
  }
}
