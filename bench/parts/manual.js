// Part `manual`: ingestion of the PostgreSQL 15 manual as website sources from 127.0.0.1, each run
// in a child process (this process serves the pages), with retrieval checks on the result.
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { batchSize, dist, fixed, isOn, mb, table } from '../lib/common.js';
import { allSources, databaseBytes, openLocalBackend, parseLimits, storedCounts, waitUntilProcessed } from '../lib/engine.js';
import { runIsolated } from '../lib/isolated.js';
import { ensureManual, manualDir, manualPages, serveFolder } from '../lib/manual-site.js';
import { profileBreakdown } from '../lib/profile.js';

const manualLimits = (process.env.GURU_BENCH_MANUAL_LIMITS ?? 'default')
  .split(',')
  .map((limit) => limit.trim())
  .filter(Boolean);
const manualStages = isOn(process.env.GURU_BENCH_MANUAL_STAGES);
const cpuProfileDir = process.env.GURU_BENCH_CPU_PROF ? resolve(process.env.GURU_BENCH_CPU_PROF) : undefined;
/** The goals for the whole manual on a 2-core machine. */
const MANUAL_GOALS = { seconds: 60, rssMb: 500 };
/**
 * Retrieval checks a reader of the manual would expect to pass: `expect` matches the title of the
 * page that should come up, among the first `within` search results or among the answer's references.
 * @typedef {{ tool: 'semantic_search' | 'ask', question: string, expect: RegExp, within: number }} ManualCheck
 * @type {ManualCheck[]}
 */
const MANUAL_CHECKS = [
  { tool: 'semantic_search', question: 'CREATE INDEX CONCURRENTLY', expect: /^CREATE INDEX$/, within: 3 },
  { tool: 'ask', question: 'How do I vacuum a table?', expect: /^VACUUM$|Routine Vacuuming/, within: 5 },
  { tool: 'semantic_search', question: 'pg_dump custom archive format', expect: /^pg_dump$/, within: 3 },
  { tool: 'semantic_search', question: 'window functions', expect: /Window Functions/, within: 3 },
  { tool: 'ask', question: 'What does work_mem control?', expect: /Resource Consumption/, within: 5 },
  { tool: 'semantic_search', question: 'jsonb containment operator', expect: /JSON/, within: 3 },
  { tool: 'ask', question: 'How do I create a role that can log in?', expect: /^CREATE ROLE$|Role Attributes/, within: 5 },
  { tool: 'semantic_search', question: 'point in time recovery', expect: /Point-in-Time Recovery/, within: 3 },
];

/**
 * @typedef {{ url: string, error: string }} ManualFailure
 * @typedef {{ check: string, tool: string, expected: string, rank: number | null, passed: boolean, top: string[], trustScore?: number }} CheckResult
 * @typedef {{
 *   limits: string, pages: number, succeeded: number, failed: number, pending: number,
 *   submitSeconds: number, totalSeconds: number, pagesPerSecond: number, cpuSeconds: number,
 *   peakRssMb: number, peakHeapUsedMb: number, peakHeapTotalMb: number, peakExternalMb: number, maxRssMb: number, databaseMb: number, databaseClosedMb: number,
 *   chunks: number, markdownMb: number, failures: ManualFailure[], checks: CheckResult[],
 *   cpuProfiles?: Array<{ file: string, thread: 'main' | 'worker' }>
 * }} ManualResult
 * @typedef {{ stage: string, seconds: number, note: string }} StageTiming
 */

/** @returns {Promise<ManualResult>} */
export async function runManual(origin, label) {
  const limits = parseLimits(label);
  const urls = manualPages().map((name) => `${origin}/${name}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-manual-'));
  const backend = await openLocalBackend(dataDir, limits);
  let closed = false;
  try {
    const { assistant } = backend;
    const slug = 'postgresql';
    await backend.admin.createGuru({ slug, name: 'PostgreSQL 15 manual' });

    // The whole picture at the highest RSS seen: how much of it is V8's heap. (rss() alone is cheap;
    // the whole picture, which walks the heap, only at a new high.)
    let peak = process.memoryUsage();
    const sampler = setInterval(() => {
      if (process.memoryUsage.rss() > peak.rss) peak = process.memoryUsage();
    }, 25);
    sampler.unref();

    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let offset = 0; offset < urls.length; offset += batchSize) {
      const created = await assistant.createDataSources(slug, { website_urls: urls.slice(offset, offset + batchSize) });
      const refused = created.filter((item) => item.status !== 'success');
      if (refused.length > 0) throw new Error(`createDataSources answered ${refused[0].status} for ${refused[0].url}`);
    }
    const submitted = performance.now();
    await waitUntilProcessed(assistant, slug);
    const finished = performance.now();
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(sampler);

    const sources = await allSources(assistant, slug);
    const statuses = {};
    for (const source of sources) statuses[source.status] = (statuses[source.status] ?? 0) + 1;
    const failures = sources.filter((source) => source.status === 'FAIL').map((source) => ({ url: source.url, error: source.error }));

    const checks = [];
    for (const check of MANUAL_CHECKS) checks.push(await runCheck(assistant, slug, check));

    const databaseOpen = databaseBytes(dataDir);
    const stored = await storedCounts(dataDir);
    await backend.close();
    closed = true;
    const totalSeconds = (finished - started) / 1000;
    return {
      limits: label,
      pages: urls.length,
      succeeded: statuses.SUCCESS ?? 0,
      failed: statuses.FAIL ?? 0,
      pending: statuses.NOT_PROCESSED ?? 0,
      submitSeconds: (submitted - started) / 1000,
      totalSeconds,
      pagesPerSecond: urls.length / totalSeconds,
      // All threads of the process: V8's collector works beside the main thread.
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      peakRssMb: mb(peak.rss),
      peakHeapUsedMb: mb(peak.heapUsed),
      peakHeapTotalMb: mb(peak.heapTotal),
      peakExternalMb: mb(peak.external),
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      databaseMb: mb(databaseOpen),
      databaseClosedMb: mb(databaseBytes(dataDir)),
      chunks: stored.chunks,
      markdownMb: mb(stored.markdownBytes),
      failures,
      checks,
    };
  } finally {
    if (!closed) await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
/** @returns {Promise<CheckResult>} */
async function runCheck(assistant, slug, check) {
  let titles;
  let trustScore;
  if (check.tool === 'semantic_search') {
    titles = (await assistant.semanticSearch(slug, { question: check.question })).sources.map((source) => source.title);
  } else {
    const answer = await assistant.ask(slug, { question: check.question });
    titles = answer.references.map((reference) => reference.title);
    trustScore = answer.trust_score;
  }
  const index = titles.findIndex((title) => check.expect.test(title));
  const rank = index === -1 ? null : index + 1;
  return {
    check: check.question,
    tool: check.tool,
    expected: String(check.expect),
    rank,
    passed: rank !== null && rank <= check.within,
    top: titles.slice(0, 3),
    ...(trustScore === undefined ? {} : { trustScore }),
  };
}

/**
 * The stages of ingestion timed apart, on the same pages, one after the other in this process:
 * fetching (HttpFetcher, as many at once as the engine reads from one host), HTML extraction,
 * chunking, and storing the extracted Markdown as text sources (chunking again plus SQLite).
 * @returns {Promise<StageTiming[]>}
 */
export async function runManualStages(origin) {
  const { HttpFetcher } = await dist('net/http-fetcher.js');
  const { extractHtml } = await dist('engine/ingest/extract/html.js');
  const { chunkMarkdown } = await dist('engine/ingest/chunker.js');
  const urls = manualPages().map((name) => `${origin}/${name}`);
  /** @type {StageTiming[]} */
  const stages = [];

  const fetcher = new HttpFetcher({ allowPrivateNetwork: true });
  const texts = new Array(urls.length);
  let started = performance.now();
  let next = 0;
  const fetchers = Array.from({ length: 4 }, async () => {
    while (next < urls.length) {
      const index = next++;
      texts[index] = (await fetcher.get(urls[index], { accept: 'text/html' })).text();
    }
  });
  await Promise.all(fetchers);
  await fetcher.close();
  const htmlBytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  stages.push({ stage: 'fetch', seconds: (performance.now() - started) / 1000, note: `${urls.length} pages, ${mb(htmlBytes).toFixed(1)} MB of HTML, 4 at once` });

  started = performance.now();
  const extracted = texts.map((text, index) => extractHtml(text, urls[index]));
  const markdownBytes = extracted.reduce((sum, page) => sum + Buffer.byteLength(page.markdown), 0);
  stages.push({ stage: 'extract HTML to Markdown', seconds: (performance.now() - started) / 1000, note: `${mb(markdownBytes).toFixed(1)} MB of Markdown` });

  started = performance.now();
  let chunks = 0;
  for (const page of extracted) chunks += chunkMarkdown(page.markdown).length;
  stages.push({ stage: 'chunk Markdown', seconds: (performance.now() - started) / 1000, note: `${chunks} chunks` });

  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-stages-'));
  const backend = await openLocalBackend(dataDir, undefined);
  try {
    await backend.admin.createGuru({ slug: 'stages', name: 'stages' });
    started = performance.now();
    for (let offset = 0; offset < extracted.length; offset += batchSize) {
      await backend.assistant.createDataSources('stages', {
        text_sources: extracted.slice(offset, offset + batchSize).map((page, index) => ({ name: `page ${offset + index}`, content: page.markdown })),
      });
    }
    await waitUntilProcessed(backend.assistant, 'stages');
    stages.push({
      stage: 'store as text sources',
      seconds: (performance.now() - started) / 1000,
      note: 'chunking again plus SQLite (FTS5) writes, through the engine',
    });
  } finally {
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return stages;
}

/**
 * One ingestion of the manual in a child process; with GURU_BENCH_CPU_PROF, a CPU profile of each of
 * its threads (the main thread and the extraction workers) and where their time went.
 */
async function runManualIsolated(origin, label) {
  if (cpuProfileDir === undefined) return runIsolated(import.meta.url, 'runManual', [origin, label]);
  const dir = join(cpuProfileDir, `manual-${label.replace('/', 'x')}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const result = await runIsolated(import.meta.url, 'runManual', [origin, label], { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  // Node names each thread's profile CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread.
  const files = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile')).sort();
  result.cpuProfiles = files.map((name) => ({ file: join(dir, name), thread: /\.0\.\d+\.cpuprofile$/.test(name) ? 'main' : 'worker' }));
  return result;
}

async function run() {
  const missing = ensureManual();
  if (missing !== undefined) {
    console.log(`\nNote: ${missing}; skipping the PostgreSQL manual benchmark.`);
    return { skipped: missing };
  }
  manualLimits.forEach(parseLimits);
  const pages = manualPages().length;
  const site = await serveFolder(manualDir);
  try {
    const runs = [];
    for (const label of manualLimits) {
      console.log(`Ingesting the PostgreSQL manual (${pages} pages from ${site.origin}), limits ${label}...`);
      runs.push(await runManualIsolated(site.origin, label));
    }
    const stages = manualStages ? (console.log('Timing the stages of ingestion apart...'), await runIsolated(import.meta.url, 'runManualStages', [site.origin])) : undefined;
    const profiles = runs.flatMap((run) =>
      (run.cpuProfiles ?? []).map(({ file, thread }) => ({ limits: run.limits, thread, file, breakdown: profileBreakdown(file) })),
    );
    return { dir: manualDir, pages, goals: MANUAL_GOALS, runs, ...(stages ? { stages } : {}), ...(profiles.length > 0 ? { profiles } : {}) };
  } finally {
    await site.close();
  }
}

function print(manual) {
  console.log(`\nIngestion of the PostgreSQL 15 manual (${manual.pages} pages as website sources from 127.0.0.1; goals: under ${manual.goals.seconds} s, peak RSS under ${manual.goals.rssMb} MB)`);
  console.log(
    table(
      ['limits', 'ok', 'failed', 'submit s', 'total s', 'pages/s', 'CPU s', 'peak RSS MB', 'DB MB', 'chunks', 'goals'],
      manual.runs.map((run) => [
        run.limits,
        run.succeeded,
        run.failed + run.pending,
        fixed(run.submitSeconds, 2),
        fixed(run.totalSeconds, 1),
        fixed(run.pagesPerSecond, 1),
        fixed(run.cpuSeconds, 1),
        fixed(run.maxRssMb, 0),
        `${fixed(run.databaseMb, 1)} (${fixed(run.databaseClosedMb, 1)} closed)`,
        run.chunks,
        run.totalSeconds < manual.goals.seconds && run.maxRssMb < manual.goals.rssMb ? 'met' : 'missed',
      ]),
    ),
  );
  for (const run of manual.runs) {
    if (run.failures.length === 0) continue;
    console.log(`\nFailures with limits ${run.limits}:`);
    for (const failure of run.failures) console.log(`  ${failure.url}: ${failure.error}`);
  }
  const [first] = manual.runs;
  if (first) {
    const passed = first.checks.filter((check) => check.passed).length;
    console.log(`\nRetrieval checks on the manual (${passed} of ${first.checks.length} passed)`);
    console.log(
      table(
        ['', 'tool', 'question', 'expected', 'rank', 'top results'],
        first.checks.map((check) => [
          check.passed ? 'ok' : 'MISS',
          check.tool,
          check.check,
          check.expected,
          check.rank ?? '-',
          check.top.join(' | ') + (check.trustScore === undefined ? '' : ` (trust ${check.trustScore})`),
        ]),
      ),
    );
  }
  if (manual.stages) {
    console.log('\nStages of ingestion timed apart (one process, one stage after another)');
    console.log(table(['stage', 'seconds', 'what'], manual.stages.map((stage) => [stage.stage, fixed(stage.seconds, 2), stage.note])));
  }
  for (const profile of manual.profiles ?? []) {
    console.log(`\nCPU profile of the run with limits ${profile.limits}, ${profile.thread} thread (${profile.file}): self time by what the code does`);
    console.log(
      table(
        ['category', 'seconds', 'share'],
        profile.breakdown.map((row) => [row.category, fixed(row.seconds, 2), `${fixed(row.share * 100, 1)} %`]),
      ),
    );
  }
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'manual', run, print };
