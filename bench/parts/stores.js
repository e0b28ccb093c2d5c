// Part `stores`: the embedded SQLite store against PostgreSQL (issue 30's measurements), on a
// throwaway PostgreSQL 15 and Redis started on 127.0.0.1 (lib/services.js) and the built
// `guru-mcp serve` (dist/). Four steps, GURU_BENCH_STORES_STEPS picks them:
//   retrieval   NFCorpus (SciFact is not on this machine) indexed into both stores by one engine
//               each, in one child process; nDCG@10 of the 323 test queries and search latency,
//               the two stores timed in turns, query by query
//   ingestion   the PostgreSQL manual added through REST: one `serve` on SQLite, two `serve` on one
//               PostgreSQL + Redis (the URLs sent to the two in turns); wall time, peak RSS and CPU
//               of each process, and PostgreSQL's own CPU
//   throughput  then, on those servers: searches and answers from CONCURRENCY clients at once,
//               sent round robin to the setup's processes (and to the first of two alone)
//   kill        two `serve` on a fresh PostgreSQL database, 300 pages of the manual added, one
//               process killed (SIGKILL) once a fifth of them are done, KILLS times: sources lost,
//               stuck or duplicated, and how long the survivor takes to finish them
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { fetch } from 'undici';
import { batchSize, dist, fixed, latencyStats, mean, positiveInt, repoRoot, table, timed } from '../lib/common.js';
import { waitUntilProcessed } from '../lib/engine.js';
import { runIsolated } from '../lib/isolated.js';
import { ensureManual, manualDir, manualPages, serveFolder, serveFolderInChild } from '../lib/manual-site.js';
import { cpuSeconds, startServe } from '../lib/serve-process.js';
import { missingServices, startPostgres, startRedis } from '../lib/services.js';
import { ndcgAt10, readCorpus, readQrels, readTestQueries } from './nfcorpus.js';
import { QUESTIONS } from './under-load.js';

const STEPS = ['retrieval', 'ingestion', 'throughput', 'kill'];
const steps = (process.env.GURU_BENCH_STORES_STEPS ?? STEPS.join(','))
  .split(',')
  .map((step) => step.trim())
  .filter(Boolean);
const rounds = positiveInt(process.env.GURU_BENCH_ROUNDS, 3);
const kills = positiveInt(process.env.GURU_BENCH_STORES_KILLS, 5);
const killPages = positiveInt(process.env.GURU_BENCH_STORES_KILL_PAGES, 300);
const concurrency = positiveInt(process.env.GURU_BENCH_STORES_CONCURRENCY, 4);
const searches = positiveInt(process.env.GURU_BENCH_STORES_SEARCHES, 400);
const answers = positiveInt(process.env.GURU_BENCH_STORES_ANSWERS, 200);
/** How long the survivor may take before what is left counts as stuck. */
const KILL_DEADLINE_MS = 120_000;
const CLI = join(repoRoot, 'dist', 'bin', 'guru-mcp.js');
const SLUG = 'pg';

// ---------------------------------------------------------------------------------------------
// Retrieval: both stores in one child process, timed in turns

/** @returns {Promise<object>} */
export async function runRetrieval(databaseUrl) {
  const { openBackend } = await dist('compose.js');
  const { loadConfig } = await dist('config.js');
  const { silentLogger } = await dist('log.js');
  const corpus = readCorpus();
  const qrels = readQrels();
  const queries = [...readTestQueries(qrels)];
  const dirs = [];
  const stores = [];
  try {
    for (const [name, flags] of [
      ['SQLite', {}],
      ['PostgreSQL', { databaseUrl }],
    ]) {
      const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-stores-'));
      dirs.push(dataDir);
      const backend = await openBackend(loadConfig({ flags: { dataDir, ...flags }, env: {} }), silentLogger);
      stores.push({ name, backend });
      await backend.admin.createGuru({ slug: 'nfcorpus', name: `NFCorpus on ${name}` });
      const started = performance.now();
      for (let offset = 0; offset < corpus.length; offset += batchSize) {
        await backend.assistant.createDataSources('nfcorpus', {
          text_sources: corpus.slice(offset, offset + batchSize).map((doc) => ({ name: doc._id, content: `# ${doc.title}\n\n${doc.text}` })),
        });
      }
      await waitUntilProcessed(backend.assistant, 'nfcorpus');
      stores.at(-1).indexSeconds = (performance.now() - started) / 1000;
    }
    const search = (store, question) => store.backend.assistant.semanticSearch('nfcorpus', { question });
    // Quality, one pass (also the warm-up), and whether the stores return the same titles.
    let sameLists = 0;
    for (const store of stores) store.ndcg = [];
    for (const [id, question] of queries) {
      const lists = [];
      for (const store of stores) {
        const ranked = [...new Set((await search(store, question)).sources.map((source) => source.title))];
        store.ndcg.push(ndcgAt10(ranked, qrels.get(id)));
        lists.push(JSON.stringify(ranked));
      }
      if (lists[0] === lists[1]) sameLists += 1;
    }
    for (const store of stores) store.samples = [];
    for (let round = 0; round < rounds; round += 1) {
      for (let index = 0; index < queries.length; index += 1) {
        for (let turn = 0; turn < stores.length; turn += 1) {
          const store = stores[(turn + index + round) % stores.length];
          store.samples.push(await timed(() => search(store, queries[index][1])));
        }
      }
    }
    return {
      documents: corpus.length,
      queries: queries.length,
      rounds,
      sameLists,
      stores: stores.map((store) => ({
        name: store.name,
        indexSeconds: store.indexSeconds,
        ndcg10: mean(store.ndcg),
        latencyMs: latencyStats(store.samples),
      })),
    };
  } finally {
    for (const store of stores) await store.backend.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Serve processes and what their store holds

/** A reader of the setup's store beside the servers: SQLite read-only, or a PostgreSQL client. */
async function openReader(setup) {
  if (setup.databaseUrl === undefined) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(join(setup.dataDirs[0], 'guru.sqlite'), { readonly: true, fileMustExist: true });
    return { all: async (text) => db.prepare(text).all(), close: async () => db.close() };
  }
  const client = new pg.Client({ connectionString: setup.databaseUrl });
  await client.connect();
  return { all: async (text) => (await client.query(text)).rows, close: () => client.end() };
}

/** Sources by status, jobs left, and the damage a crash could leave. */
async function storeState(reader) {
  const rows = await reader.all('SELECT status, count(*) AS n FROM data_sources GROUP BY status');
  const statuses = Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  const [{ n: jobs }] = await reader.all('SELECT count(*) AS n FROM jobs');
  return { statuses, jobs: Number(jobs) };
}

/** Starts a setup: a data directory per process, the guru made by the CLI, `processes` servers. */
async function startSetup(store, processes, services) {
  const databaseUrl = store === 'postgres' ? await services.postgres.freshDatabase() : undefined;
  const dataDirs = Array.from({ length: store === 'postgres' ? processes : 1 }, () => mkdtempSync(join(tmpdir(), 'guru-bench-stores-')));
  const envOf = (dataDir) => ({
    ...process.env,
    GURU_DATA_DIR: dataDir,
    GURU_ALLOW_PRIVATE_NETWORK: '1',
    GURU_RATE_LIMIT_PER_MINUTE: '0',
    GURU_LOG_LEVEL: 'warn',
    ...(databaseUrl === undefined ? {} : { GURU_DATABASE_URL: databaseUrl, GURU_REDIS_URL: services.redis.url }),
  });
  const created = spawnSync(process.execPath, [CLI, 'guru', 'create', SLUG, '--json'], { env: envOf(dataDirs[0]), encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`guru create failed: ${created.stderr}`);
  const apiKey = JSON.parse(created.stdout).api_key;
  const servers = [];
  const setup = { store, processes, databaseUrl, dataDirs, apiKey, servers };
  try {
    for (let index = 0; index < processes; index += 1) servers.push(await startServe(CLI, envOf(dataDirs[index % dataDirs.length])));
  } catch (error) {
    await stopSetup(setup);
    throw error;
  }
  return setup;
}

async function stopSetup(setup) {
  for (const server of setup.servers) await server.stop();
  for (const dir of setup.dataDirs) rmSync(dir, { recursive: true, force: true });
}

async function post(origin, apiKey, path, body) {
  const response = await fetch(`${origin}/api/v1/${SLUG}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** Adds the URLs in batches, the batches sent to the servers in turn. */
async function addPages(setup, urls) {
  for (let offset = 0, turn = 0; offset < urls.length; offset += batchSize, turn += 1) {
    const server = setup.servers[turn % setup.servers.length];
    await post(server.origin, setup.apiKey, 'data-sources', { website_urls: urls.slice(offset, offset + batchSize) });
  }
}

/** Waits until no source is NOT_PROCESSED and no job is left, or `deadline` (performance.now()); the last state. */
async function untilDone(reader, deadline = Number.POSITIVE_INFINITY) {
  for (;;) {
    const state = await storeState(reader);
    if ((state.statuses.NOT_PROCESSED ?? 0) === 0 && state.jobs === 0) return { ...state, done: true };
    if (performance.now() > deadline) return { ...state, done: false };
    await sleep(50);
  }
}

/** The process's highest resident set size (VmHWM), worker threads included. */
function peakRssMb(pid) {
  const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return kb ? Number(kb[1]) / 1024 : Number.NaN;
}

/** CPU seconds of the PostgreSQL server: the postmaster and every process it started (its backends). */
function postgresCpuSeconds(dir) {
  const postmaster = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let seconds = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ').at(-1).split(' ');
      if (Number(name) === postmaster || Number(fields[1]) === postmaster) seconds += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // The process ended meanwhile.
    }
  }
  return seconds;
}

// ---------------------------------------------------------------------------------------------
// Ingestion and throughput

async function ingestManual(setup, site, services) {
  const urls = manualPages().map((name) => `${site.origin}/${name}`);
  const reader = await openReader(setup);
  try {
    const cpuBefore = setup.servers.map((server) => cpuSeconds(server.pid).process);
    const pgBefore = setup.databaseUrl === undefined ? 0 : postgresCpuSeconds(services.postgres.dir);
    const load = loadavg();
    const started = performance.now();
    await addPages(setup, urls);
    const state = await untilDone(reader);
    const seconds = (performance.now() - started) / 1000;
    return {
      setup: `${setup.store === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${setup.processes} process${setup.processes > 1 ? 'es' : ''}`,
      pages: urls.length,
      seconds,
      succeeded: state.statuses.SUCCESS ?? 0,
      failed: state.statuses.FAIL ?? 0,
      processes: setup.servers.map((server, index) => ({
        peakRssMb: peakRssMb(server.pid),
        cpuSeconds: cpuSeconds(server.pid).process - cpuBefore[index],
      })),
      postgresCpuSeconds: setup.databaseUrl === undefined ? undefined : postgresCpuSeconds(services.postgres.dir) - pgBefore,
      loadAverage: { before: load, after: loadavg() },
    };
  } finally {
    await reader.close();
  }
}

/** `total` requests of one kind from `concurrency` clients at once, round robin over `origins`. */
async function load(origins, apiKey, kind, total) {
  const samples = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const index = next++;
        const question = QUESTIONS[index % QUESTIONS.length];
        const origin = origins[index % origins.length];
        const begun = performance.now();
        if (kind === 'search') await post(origin, apiKey, 'semantic-search', { question });
        else await post(origin, apiKey, 'answer', { question, fetch_existing: false });
        samples.push(performance.now() - begun);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: total / seconds, latencyMs: latencyStats(samples) };
}

async function measureThroughput(setup) {
  const label = setup.store === 'postgres' ? 'PostgreSQL' : 'SQLite';
  const origins = setup.servers.map((server) => server.origin);
  const series = [{ name: `${label}, ${origins.length} process${origins.length > 1 ? 'es' : ''}`, origins }];
  if (origins.length > 1) series.push({ name: `${label}, 1 of the ${origins.length} processes`, origins: origins.slice(0, 1) });
  // Warm-up: every process answers every question once.
  for (const origin of origins) await load([origin], setup.apiKey, 'search', QUESTIONS.length);
  for (const origin of origins) await load([origin], setup.apiKey, 'answer', QUESTIONS.length);
  const results = [];
  for (const { name, origins: targets } of series) {
    const load1 = loadavg()[0];
    const search = await load(targets, setup.apiKey, 'search', searches);
    const answer = await load(targets, setup.apiKey, 'answer', answers);
    results.push({ name, search, answer, load1: [load1, loadavg()[0]] });
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// kill -9 during ingestion

/** How many of the manual's pages the site has served more than once. */
function fetchedTwice(site) {
  let pages = 0;
  for (const [path, count] of site.fetches()) if (path.endsWith('.html') && count > 1) pages += 1;
  return pages;
}

async function killRun(run, services) {
  // The pages from this process (it only polls meanwhile), so that each page's fetches are counted.
  const site = await serveFolder(manualDir);
  const setup = await startSetup('postgres', 2, services).catch(async (error) => {
    await site.close();
    throw error;
  });
  const urls = manualPages()
    .slice(0, killPages)
    .map((name) => `${site.origin}/${name}`);
  const reader = await openReader(setup);
  try {
    await addPages(setup, urls);
    // Once a fifth of the pages are done, the process that took them half the time is killed.
    for (const giveUp = performance.now() + KILL_DEADLINE_MS; ; ) {
      const { statuses } = await storeState(reader);
      if ((statuses.SUCCESS ?? 0) + (statuses.FAIL ?? 0) >= urls.length / 5) break;
      if (performance.now() > giveUp) throw new Error(`kill run ${run + 1}: not a fifth of the pages processed in ${KILL_DEADLINE_MS / 1000} s`);
      await sleep(20);
    }
    const victim = setup.servers[run % 2];
    const before = await storeState(reader);
    const [{ n: leased }] = await reader.all(`SELECT count(*) AS n FROM jobs WHERE lease_owner LIKE '%/${victim.pid}/%'`);
    const fetchedBefore = fetchedTwice(site);
    process.kill(victim.pid, 'SIGKILL');
    const killed = performance.now();
    const state = await untilDone(reader, killed + KILL_DEADLINE_MS);
    const finishedSeconds = (performance.now() - killed) / 1000;
    const [{ n: rows, distinct }] = await reader.all('SELECT count(*) AS n, count(DISTINCT url) AS distinct FROM data_sources');
    const [{ n: duplicateChunks }] = await reader.all(
      'SELECT count(*) AS n FROM (SELECT source_id, position FROM chunks GROUP BY source_id, position HAVING count(*) > 1) AS twice',
    );
    const [{ n: empty }] = await reader.all(
      "SELECT count(*) AS n FROM data_sources s WHERE s.status = 'SUCCESS' AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.source_id = s.id)",
    );
    const [{ n: orphanedNotProcessed }] = await reader.all(
      "SELECT count(*) AS n FROM data_sources s WHERE s.status = 'NOT_PROCESSED' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.source_id = s.id)",
    );
    const missing = urls.length - Number(distinct);
    const fetchedAfter = fetchedTwice(site);
    return {
      run: run + 1,
      pages: urls.length,
      doneAtKill: (before.statuses.SUCCESS ?? 0) + (before.statuses.FAIL ?? 0),
      leasedByVictim: Number(leased),
      finished: state.done,
      finishedSeconds,
      succeeded: state.statuses.SUCCESS ?? 0,
      failed: state.statuses.FAIL ?? 0,
      // Lost: gone, or waiting with no job that would ever process them; stuck: still waiting on a job at the deadline.
      lost: missing + Number(orphanedNotProcessed),
      stuck: state.done ? 0 : (state.statuses.NOT_PROCESSED ?? 0) - Number(orphanedNotProcessed),
      duplicatedSources: Number(rows) - Number(distinct),
      duplicatedChunks: Number(duplicateChunks),
      successWithoutChunks: Number(empty),
      // Pages fetched more than once: before the kill, two processes working on one source; after
      // it, also the killed process's pages in flight, which the survivor fetches again.
      fetchedTwiceBeforeKill: fetchedBefore,
      fetchedTwice: fetchedAfter,
      load1: loadavg()[0],
    };
  } finally {
    await reader.close();
    await stopSetup(setup);
    await site.close();
  }
}

// ---------------------------------------------------------------------------------------------

async function run() {
  const unknown = steps.filter((step) => !STEPS.includes(step));
  if (unknown.length > 0) throw new Error(`GURU_BENCH_STORES_STEPS: unknown step ${unknown.join(', ')}; known: ${STEPS.join(', ')}`);
  const missing = missingServices();
  if (missing !== undefined) {
    console.log(`\nNote: ${missing}; skipping the stores benchmark.`);
    return { skipped: missing };
  }
  const result = { steps, loadAverage: { before: loadavg() } };
  // What cannot run here is said and skipped before any server starts.
  const corpus = join(process.env.GURU_BENCH_DATA ?? join(repoRoot, '..', 'shared', 'bench', 'nfcorpus'), 'corpus.jsonl');
  const retrieval = steps.includes('retrieval') && existsSync(corpus);
  if (steps.includes('retrieval') && !retrieval) {
    console.log(`\nNote: ${corpus} is missing (GURU_BENCH_DATA); skipping the stores' retrieval step.`);
    result.retrieval = { skipped: `${corpus} is missing` };
  }
  let manualSteps = steps.filter((step) => step !== 'retrieval');
  const absent = manualSteps.length > 0 ? ensureManual() : undefined;
  if (absent !== undefined) {
    console.log(`\nNote: ${absent}; skipping the stores' ${manualSteps.join(', ')} steps.`);
    for (const step of manualSteps) result[step] = { skipped: absent };
    manualSteps = [];
  }
  if (!retrieval && manualSteps.length === 0) return { skipped: result.retrieval?.skipped ?? absent };

  const started = performance.now();
  const postgres = await startPostgres();
  const services = { postgres, redis: undefined };
  try {
    services.redis = await startRedis();
    if (retrieval) {
      console.log('Stores: NFCorpus indexed into SQLite and PostgreSQL, searched in turns...');
      result.retrieval = await runIsolated(import.meta.url, 'runRetrieval', [await postgres.freshDatabase()]);
    }
    if (manualSteps.includes('ingestion') || manualSteps.includes('throughput')) {
      result.ingestion = [];
      if (manualSteps.includes('throughput')) result.throughput = [];
      const site = await serveFolderInChild(manualDir);
      try {
        for (const [store, processes] of [
          ['sqlite', 1],
          ['postgres', 2],
        ]) {
          console.log(`Stores: the PostgreSQL manual through ${processes} serve on ${store}...`);
          const setup = await startSetup(store, processes, services);
          try {
            result.ingestion.push(await ingestManual(setup, site, services));
            if (manualSteps.includes('throughput')) result.throughput.push(...(await measureThroughput(setup)));
          } finally {
            await stopSetup(setup);
          }
        }
      } finally {
        await site.close();
      }
    }
    if (manualSteps.includes('kill')) {
      result.kill = [];
      for (let index = 0; index < kills; index += 1) {
        console.log(`Stores: kill -9 during ingestion of ${killPages} pages, run ${index + 1} of ${kills}...`);
        result.kill.push(await killRun(index, services));
      }
    }
  } finally {
    await services.redis?.stop();
    await postgres.stop();
  }
  result.seconds = (performance.now() - started) / 1000;
  result.loadAverage.after = loadavg();
  return result;
}

function print(result) {
  const ms = (stats) => `${fixed(stats.p50, 2)} / ${fixed(stats.p99, 2)}`;
  const { retrieval } = result;
  if (retrieval && !retrieval.skipped) {
    console.log(
      `\nStores: NFCorpus (${retrieval.documents} documents, SciFact is not on this machine), ${retrieval.queries} test queries; latency in ms over ` +
        `${retrieval.rounds} rounds, the stores in turns, in one process; the same titles in the same order for ${retrieval.sameLists} of ${retrieval.queries} queries`,
    );
    console.log(
      table(
        ['store', 'indexed s', 'nDCG@10', 'search p50 / p99', 'p95', 'mean'],
        retrieval.stores.map((store) => [
          store.name,
          fixed(store.indexSeconds, 1),
          fixed(store.ndcg10, 4),
          ms(store.latencyMs),
          fixed(store.latencyMs.p95, 2),
          fixed(store.latencyMs.mean, 2),
        ]),
      ),
    );
  }
  if (Array.isArray(result.ingestion)) {
    console.log('\nStores: the PostgreSQL manual added through REST (batches of 100 URLs sent to the processes in turn); per process: peak RSS MB, CPU s');
    console.log(
      table(
        ['setup', 'pages', 'ok', 'failed', 'wall s', 'per process: peak RSS MB / CPU s', 'PostgreSQL CPU s', 'load 1 min'],
        result.ingestion.map((run) => [
          run.setup,
          run.pages,
          run.succeeded,
          run.failed,
          fixed(run.seconds, 1),
          run.processes.map((p) => `${fixed(p.peakRssMb, 0)} / ${fixed(p.cpuSeconds, 1)}`).join(', '),
          run.postgresCpuSeconds === undefined ? '-' : fixed(run.postgresCpuSeconds, 1),
          `${fixed(run.loadAverage.before[0], 1)}–${fixed(run.loadAverage.after[0], 1)}`,
        ]),
      ),
    );
  }
  if (Array.isArray(result.throughput)) {
    console.log(`\nStores: ${concurrency} clients at once over REST, round robin over the processes (${searches} searches, then ${answers} answers; ms p50 / p99)`);
    console.log(
      table(
        ['setup', 'searches/s', 'search p50 / p99', 'answers/s', 'answer p50 / p99', 'load 1 min'],
        result.throughput.map((row) => [
          row.name,
          fixed(row.search.perSecond, 1),
          ms(row.search.latencyMs),
          fixed(row.answer.perSecond, 1),
          ms(row.answer.latencyMs),
          `${fixed(row.load1[0], 1)}–${fixed(row.load1[1], 1)}`,
        ]),
      ),
    );
  }
  if (Array.isArray(result.kill)) {
    console.log(`\nStores: kill -9 of one of two processes on PostgreSQL once a fifth of ${killPages} pages are done (goal: 0 lost, stuck, duplicated)`);
    console.log(
      table(
        ['run', 'done at kill', 'leased by killed', 'finished', 'after kill s', 'ok', 'failed', 'lost', 'stuck', 'dup sources', 'dup chunks', 'ok w/o chunks', 'fetched twice (before kill)', 'load 1 min'],
        result.kill.map((run) => [
          run.run,
          run.doneAtKill,
          run.leasedByVictim,
          run.finished ? 'yes' : 'NO',
          fixed(run.finishedSeconds, 1),
          run.succeeded,
          run.failed,
          run.lost,
          run.stuck,
          run.duplicatedSources,
          run.duplicatedChunks,
          run.successWithoutChunks,
          `${run.fetchedTwice} (${run.fetchedTwiceBeforeKill})`,
          fixed(run.load1, 1),
        ]),
      ),
    );
  }
  console.log(`\nStores part: ${fixed(result.seconds, 0)} s; load ${result.loadAverage.before.map((n) => fixed(n, 2)).join(', ')} before, ${result.loadAverage.after.map((n) => fixed(n, 2)).join(', ')} after`);
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'stores', run, print };
