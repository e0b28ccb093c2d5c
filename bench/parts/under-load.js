// Part `under-load`: the PostgreSQL manual added through REST to a running `guru-mcp serve` (the
// built bundle, on 127.0.0.1) while one client searches and asks, one request at a time. The
// questions go to a guru that already holds the manual, so that idle and busy latencies are over
// the same index: first the client runs alone (idle), then the manual is added to a second guru
// and the client runs until that guru's sources are all processed (busy).
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetch } from 'undici';
import { batchSize, fixed, latencyStats, positiveInt, repoRoot, table } from '../lib/common.js';
import { cpuSeconds, startServe } from '../lib/serve-process.js';
import { ensureManual, manualDir, manualPages, serveFolderInChild } from '../lib/manual-site.js';

const runs = positiveInt(process.env.GURU_BENCH_LOAD_RUNS, 1);
const idleRequests = positiveInt(process.env.GURU_BENCH_LOAD_IDLE, 200);
const extractionThreads = process.env.GURU_BENCH_EXTRACTION_THREADS;
const CLI = join(repoRoot, 'dist', 'bin', 'guru-mcp.js');

/** Issue 9's goals on a 2-core machine. */
const GOALS = { seconds: 5, searchP99Ms: 50, p99Ratio: 3, rssMb: 400 };

/** What the client asks, in turn: each question once as a search and once as a question. */
export const QUESTIONS = [
  'CREATE INDEX CONCURRENTLY',
  'How do I vacuum a table?',
  'pg_dump custom archive format',
  'window functions',
  'What does work_mem control?',
  'jsonb containment operator',
  'How do I create a role that can log in?',
  'point in time recovery',
  'logical replication subscription',
  'How are deadlocks detected?',
  'partitioned table attach partition',
  'What is a TOAST table?',
];

/**
 * @typedef {import('../lib/common.js').LatencyStats} LatencyStats
 * @typedef {{ search: LatencyStats, answer: LatencyStats }} Latencies
 * @typedef {{ process: number, main: number }} CpuSeconds the server's CPU time in a phase: all threads, and the main thread
 * @typedef {{
 *   pages: number, firstSeconds: number, busySeconds: number, failed: number,
 *   firstCpu: CpuSeconds, busyCpu: CpuSeconds,
 *   idle: Latencies, busy: Latencies, peakRssMb: number, loadAverage: { before: number[], after: number[] },
 *   goals: { seconds: boolean, searchP99: boolean, rss: boolean }
 * }} LoadRun
 */

/** `guru-mcp serve` on a port of its own, with the data directory's first guru and its key. */
async function startServer(dataDir) {
  const env = {
    ...process.env,
    GURU_DATA_DIR: dataDir,
    GURU_ALLOW_PRIVATE_NETWORK: '1',
    GURU_RATE_LIMIT_PER_MINUTE: '0',
    GURU_LOG_LEVEL: 'warn',
    ...(extractionThreads === undefined ? {} : { GURU_EXTRACTION_THREADS: extractionThreads }),
  };
  const keys = {};
  for (const slug of ['pg', 'pg2']) {
    const created = spawnSync(process.execPath, [CLI, 'guru', 'create', slug, '--json'], { env, encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`guru create ${slug} failed: ${created.stderr}`);
    keys[slug] = JSON.parse(created.stdout).api_key;
  }
  return { ...(await startServe(CLI, env)), keys };
}

/** The server's highest resident set size so far (VmHWM), worker threads included; reset with resetPeakRss. */
function peakRssMb(pid) {
  const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return kb ? Number(kb[1]) / 1024 : Number.NaN;
}

const cpuSince = (before, after) => ({ process: after.process - before.process, main: after.main - before.main });

/** Starts the high-water mark of the server's RSS afresh (Linux: clear_refs 5). */
function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Without it, the peak covers the setup too: the same ingestion, without queries.
  }
}

async function post(server, slug, path, body) {
  const response = await fetch(`${server.origin}/api/v1/${slug}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.keys[slug] },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** Adds every page of the manual to `slug` as website sources, in batches. */
async function addManual(server, slug, site) {
  const urls = manualPages().map((name) => `${site.origin}/${name}`);
  for (let offset = 0; offset < urls.length; offset += batchSize) {
    await post(server, slug, 'data-sources', { website_urls: urls.slice(offset, offset + batchSize) });
  }
}

/** Waits until the data directory holds no job: everything added is processed. Reads the database beside the server. */
async function untilProcessed(db, stillRunning = () => true) {
  const pending = db.prepare('SELECT count(*) AS n FROM jobs');
  while (pending.get().n > 0 && stillRunning()) await sleep(20);
}

/** Searches and asks in turn, one request at a time, until `done()`; at least `minimum` requests. */
async function queryLoop(server, done, minimum = 0) {
  const search = [];
  const answer = [];
  for (let index = 0; search.length + answer.length < minimum || !done(); index++) {
    const question = QUESTIONS[Math.floor(index / 2) % QUESTIONS.length];
    const started = performance.now();
    if (index % 2 === 0) {
      await post(server, 'pg', 'semantic-search', { question });
      search.push(performance.now() - started);
    } else {
      await post(server, 'pg', 'answer', { question, fetch_existing: false });
      answer.push(performance.now() - started);
    }
  }
  return { search: latencyStats(search), answer: latencyStats(answer) };
}

/** @returns {Promise<LoadRun>} */
async function runOnce(site) {
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-load-'));
  const server = await startServer(dataDir);
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true, fileMustExist: true });
  try {
    // The guru the client asks, filled first (the same work as below, with no one asking).
    let cpuBefore = cpuSeconds(server.pid);
    let started = performance.now();
    await addManual(server, 'pg', site);
    await untilProcessed(db);
    const firstSeconds = (performance.now() - started) / 1000;
    const firstCpu = cpuSince(cpuBefore, cpuSeconds(server.pid));

    // A warm-up, then the client alone.
    await queryLoop(server, () => true, 2 * QUESTIONS.length);
    const idle = await queryLoop(server, () => true, idleRequests);

    const loadBefore = loadavg();
    resetPeakRss(server.pid);
    let ingesting = true;
    cpuBefore = cpuSeconds(server.pid);
    started = performance.now();
    const ingestion = addManual(server, 'pg2', site)
      .then(() => untilProcessed(db))
      .then(() => (performance.now() - started) / 1000)
      .finally(() => {
        ingesting = false;
      });
    const busy = await queryLoop(server, () => !ingesting);
    const busySeconds = await ingestion;
    const busyCpu = cpuSince(cpuBefore, cpuSeconds(server.pid));
    const peakMb = peakRssMb(server.pid);
    const { failed } = db.prepare("SELECT count(*) AS failed FROM data_sources WHERE status = 'FAIL'").get();
    return {
      pages: manualPages().length,
      firstSeconds,
      busySeconds,
      firstCpu,
      busyCpu,
      failed,
      idle,
      busy,
      peakRssMb: peakMb,
      loadAverage: { before: loadBefore, after: loadavg() },
      goals: {
        seconds: busySeconds <= GOALS.seconds,
        searchP99: busy.search.p99 <= GOALS.searchP99Ms && busy.search.p99 <= GOALS.p99Ratio * idle.search.p99,
        rss: peakMb <= GOALS.rssMb,
      },
    };
  } finally {
    db.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function run() {
  const missing = ensureManual();
  if (missing !== undefined) {
    console.log(`\nNote: ${missing}; skipping the under-load benchmark.`);
    return { skipped: missing };
  }
  const site = await serveFolderInChild(manualDir);
  try {
    const results = [];
    for (let index = 0; index < runs; index++) {
      console.log(`Ingesting the PostgreSQL manual through REST while a client searches and asks, run ${index + 1} of ${runs}...`);
      results.push(await runOnce(site));
    }
    return { goals: GOALS, extractionThreads: extractionThreads ?? 'default', runs: results };
  } finally {
    await site.close();
  }
}

function print(result) {
  const { goals } = result;
  console.log(
    `\nThe PostgreSQL manual added through REST while one client searches and asks, one request at a time (goals: manual in ≤ ${goals.seconds} s, ` +
      `search p99 ≤ ${goals.searchP99Ms} ms and ≤ ${goals.p99Ratio}× idle, peak RSS ≤ ${goals.rssMb} MB; extraction threads: ${result.extractionThreads})`,
  );
  const ms = (stats) => `${fixed(stats.p50, 1)} / ${fixed(stats.p99, 1)}`;
  const cpu = (seconds) => `${fixed(seconds.main, 1)} / ${fixed(seconds.process, 1)}`;
  console.log(
    table(
      ['run', 'manual s', 'alone s', 'CPU s main/all', 'alone', 'failed', 'search p50/p99 idle', 'busy', 'answer p50/p99 idle', 'busy', 'requests busy', 'peak RSS MB', 'load 1 min', 'goals'],
      result.runs.map((run, index) => [
        index + 1,
        fixed(run.busySeconds, 1),
        fixed(run.firstSeconds, 1),
        cpu(run.busyCpu),
        cpu(run.firstCpu),
        run.failed,
        ms(run.idle.search),
        ms(run.busy.search),
        ms(run.idle.answer),
        ms(run.busy.answer),
        run.busy.search.samples + run.busy.answer.samples,
        fixed(run.peakRssMb, 0),
        `${fixed(run.loadAverage.before[0], 1)}–${fixed(run.loadAverage.after[0], 1)}`,
        Object.entries(run.goals)
          .map(([goal, met]) => (met ? '' : `${goal} missed`))
          .filter(Boolean)
          .join(', ') || 'met',
      ]),
    ),
  );
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'under-load', run, print };
