// `npm run bench`: indexing throughput, retrieval quality (nDCG@10 on BEIR NFCorpus), search latency,
// ingestion of the PostgreSQL 15 manual as website sources, and stdio start-up cost against a
// minimal SDK server. Plain ESM on top of the built dist/.
//
// Settings (environment):
//   GURU_BENCH_PARTS     comma list of parts to run: nfcorpus,manual,crawl,startup (default: all four)
//   GURU_BENCH_CRAWLS    timed crawls of the PostgreSQL manual (default: 3)
//   GURU_BENCH_DATA      NFCorpus folder (default: ../shared/bench/nfcorpus from the repo root)
//   GURU_BENCH_VARIANTS  comma list of document shapes to index: heading,plain (default: both;
//                        empty: no NFCorpus part)
//   GURU_BENCH_BATCH     sources per createDataSources call, texts and URLs (default: 100)
//   GURU_BENCH_ROUNDS    timed rounds over the test queries, per latency series (default: 3)
//   GURU_BENCH_STARTS    timed start-ups per server (default: 10)
//   GURU_BENCH_MANUAL_DIR     the PostgreSQL 15 manual's HTML folder (default:
//                        /usr/share/doc/postgresql-doc-15/html; when it is missing and the bench runs
//                        as root, `apt-get install -y postgresql-doc-15` is tried, else the part is skipped)
//   GURU_BENCH_MANUAL_LIMITS  comma list of processing limits to ingest the manual with, each
//                        `default` (openBackend, the engine's own limits) or CONCURRENCY/PER_HOST for
//                        LocalEngine.open({ processing }), e.g. default,8/8,12/12 (default: default)
//   GURU_BENCH_MANUAL_STAGES  1: also time the stages of ingestion apart (fetch, HTML extraction,
//                        chunking, SQLite) on the same pages (default: 0)
//   GURU_BENCH_CPU_PROF  a folder: each manual ingestion run writes a V8 CPU profile there
//                        (node --cpu-prof) and the bench prints where its time went
//
// Each indexing variant and each manual ingestion runs in its own child process so that its peak
// RSS is its own; the manual's pages are served by this process.
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { URL, fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(repoRoot, 'bench', 'results');
const dataPath = resolve(process.env.GURU_BENCH_DATA ?? join(repoRoot, '..', 'shared', 'bench', 'nfcorpus'));
const batchSize = positiveInt(process.env.GURU_BENCH_BATCH, 100);
const rounds = positiveInt(process.env.GURU_BENCH_ROUNDS, 3);
const starts = positiveInt(process.env.GURU_BENCH_STARTS, 10);

/** How a corpus document becomes a text source. */
const VARIANTS = {
  /** The title as a Markdown heading, so that it becomes the chunks' heading path. */
  heading: (doc) => `# ${doc.title}\n\n${doc.text}`,
  /** The title as the first paragraph. */
  plain: (doc) => `${doc.title}\n\n${doc.text}`,
};

/**
 * @typedef {{ _id: string, title: string, text: string }} CorpusDoc
 * @typedef {{ p50: number, p95: number, p99: number, mean: number, samples: number }} LatencyStats
 * @typedef {{
 *   variant: string, documents: number, succeeded: number, failed: number, pending: number,
 *   submitSeconds: number, indexSeconds: number, docsPerSecond: number,
 *   peakRssMb: number, maxRssMb: number,
 *   queries: number, ndcg10: number, recall10: number, mrr10: number, duplicateTitles: number,
 *   latencyMs: { anonymous: LatencyStats, withUser: LatencyStats }
 * }} VariantResult
 * @typedef {{ server: string, firstMs?: number, medianMs?: number, minMs?: number, maxMs?: number, rssMb?: number, error?: string }} StartupResult
 */

function positiveInt(value, fallback) {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}

// ---------------------------------------------------------------------------------------------
// Data

/** @returns {CorpusDoc[]} */
function readCorpus() {
  return readJsonLines(join(dataPath, 'corpus.jsonl'));
}

/** @returns {Map<string, string>} query id -> text, test queries only */
function readTestQueries(qrels) {
  const all = new Map(readJsonLines(join(dataPath, 'queries.jsonl')).map((q) => [q._id, q.text]));
  const queries = new Map();
  for (const id of qrels.keys()) {
    const text = all.get(id);
    if (text === undefined) throw new Error(`query ${id} of qrels-test.tsv is missing from queries.jsonl`);
    queries.set(id, text);
  }
  return queries;
}

/** @returns {Map<string, Map<string, number>>} query id -> (doc id -> graded relevance) */
function readQrels() {
  const qrels = new Map();
  const lines = readFileSync(join(dataPath, 'qrels-test.tsv'), 'utf8').split('\n');
  for (const raw of lines.slice(1)) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const [queryId, docId, score] = line.split('\t');
    if (!qrels.has(queryId)) qrels.set(queryId, new Map());
    qrels.get(queryId).set(docId, Number(score));
  }
  return qrels;
}

function readJsonLines(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

// ---------------------------------------------------------------------------------------------
// Metrics

/** nDCG@10 as trec_eval computes it: gain = rel, discount log2(rank + 1), ideal from all judged docs. */
function ndcgAt10(ranked, judged) {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, index) => {
    dcg += (judged.get(id) ?? 0) / Math.log2(index + 2);
  });
  const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((sum, rel, index) => sum + rel / Math.log2(index + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

function recallAt10(ranked, judged) {
  const relevant = [...judged.values()].filter((rel) => rel > 0).length;
  const found = ranked.slice(0, 10).filter((id) => (judged.get(id) ?? 0) > 0).length;
  return relevant > 0 ? found / relevant : 0;
}

function reciprocalRankAt10(ranked, judged) {
  const index = ranked.slice(0, 10).findIndex((id) => (judged.get(id) ?? 0) > 0);
  return index === -1 ? 0 : 1 / (index + 1);
}

/** @returns {LatencyStats} */
function latencyStats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { p50: rank(50), p95: rank(95), p99: rank(99), mean, samples: sorted.length };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function mean(values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

const mb = (bytes) => bytes / (1024 * 1024);

// ---------------------------------------------------------------------------------------------
// One indexing variant (runs in a child process)

/** @returns {Promise<VariantResult>} */
async function runVariant(variant) {
  const toContent = VARIANTS[variant];
  if (!toContent) throw new Error(`unknown variant ${variant}; known: ${Object.keys(VARIANTS).join(', ')}`);
  const { openBackend } = await import('../dist/compose.js');
  const { loadConfig } = await import('../dist/config.js');
  const { silentLogger } = await import('../dist/log.js');

  const corpus = readCorpus();
  const qrels = readQrels();
  const queries = readTestQueries(qrels);

  const dataDir = mkdtempSync(join(tmpdir(), `guru-bench-${variant}-`));
  const backend = await openBackend(loadConfig({ flags: { dataDir }, env: {} }), silentLogger);
  try {
    const { assistant } = backend;
    const slug = 'nfcorpus';
    await backend.admin.createGuru({ slug, name: `NFCorpus (${variant})` });

    let peakRss = process.memoryUsage.rss();
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 25);

    const started = performance.now();
    for (let offset = 0; offset < corpus.length; offset += batchSize) {
      const batch = corpus.slice(offset, offset + batchSize);
      await assistant.createDataSources(slug, {
        text_sources: batch.map((doc) => ({ name: doc._id, content: toContent(doc) })),
      });
    }
    const submitted = performance.now();
    await waitUntilProcessed(assistant, slug);
    const indexed = performance.now();
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());

    const statuses = await countStatuses(assistant, slug);

    // Quality: one pass, in qrels order. Also serves as the latency warm-up.
    const perQuery = [];
    let duplicateTitles = 0;
    for (const [id, text] of queries) {
      const response = await assistant.semanticSearch(slug, { question: text });
      const titles = response.sources.map((source) => source.title);
      const ranked = [...new Set(titles)];
      duplicateTitles += titles.length - ranked.length;
      const judged = qrels.get(id);
      perQuery.push({
        id,
        ndcg10: ndcgAt10(ranked, judged),
        recall10: recallAt10(ranked, judged),
        rr10: reciprocalRankAt10(ranked, judged),
        returned: ranked.length,
      });
    }

    const texts = [...queries.values()];
    const anonymous = [];
    const withUser = [];
    const externalUserId = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
    for (let round = 0; round < rounds; round += 1) {
      for (const question of texts) anonymous.push(await timed(() => assistant.semanticSearch(slug, { question })));
    }
    for (let round = 0; round < rounds; round += 1) {
      for (const question of texts) {
        withUser.push(await timed(() => assistant.semanticSearch(slug, { question, external_user_id: externalUserId })));
      }
    }

    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, `per-query-${variant}.json`), `${JSON.stringify(perQuery, null, 2)}\n`);

    const indexSeconds = (indexed - started) / 1000;
    return {
      variant,
      documents: corpus.length,
      succeeded: statuses.SUCCESS ?? 0,
      failed: statuses.FAIL ?? 0,
      pending: statuses.NOT_PROCESSED ?? 0,
      submitSeconds: (submitted - started) / 1000,
      indexSeconds,
      docsPerSecond: corpus.length / indexSeconds,
      peakRssMb: mb(peakRss),
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      queries: perQuery.length,
      ndcg10: mean(perQuery.map((q) => q.ndcg10)),
      recall10: mean(perQuery.map((q) => q.recall10)),
      mrr10: mean(perQuery.map((q) => q.rr10)),
      duplicateTitles,
      latencyMs: { anonymous: latencyStats(anonymous), withUser: latencyStats(withUser) },
    };
  } finally {
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function timed(call) {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** The engine's own idle signal when it offers one; otherwise the data-source statuses. */
async function waitUntilProcessed(assistant, slug) {
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

async function countStatuses(assistant, slug) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (let page = 1; ; page += 1) {
    const listing = await assistant.listDataSources(slug, { page, page_size: 1000 });
    for (const source of listing.results) counts[source.status] = (counts[source.status] ?? 0) + 1;
    if (listing.results.length === 0 || page * listing.page_size >= listing.count) return counts;
  }
}

/** Runs one variant in a fresh Node process and reads back its result. */
async function runVariantIsolated(variant) {
  const output = join(mkdtempSync(join(tmpdir(), 'guru-bench-out-')), 'result.json');
  try {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--variant', variant, output], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = await new Promise((done) => child.on('exit', (exitCode) => done(exitCode)));
    if (code !== 0) throw new Error(`variant ${variant} exited with code ${code}`);
    return JSON.parse(readFileSync(output, 'utf8'));
  } finally {
    rmSync(join(output, '..'), { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The PostgreSQL 15 manual as website sources (ingestion runs in a child process)

const MANUAL_PACKAGE = 'postgresql-doc-15';
const manualDir = resolve(process.env.GURU_BENCH_MANUAL_DIR ?? `/usr/share/doc/${MANUAL_PACKAGE}/html`);
const manualLimits = (process.env.GURU_BENCH_MANUAL_LIMITS ?? 'default')
  .split(',')
  .map((limit) => limit.trim())
  .filter(Boolean);
const manualStages = ['1', 'true', 'yes'].includes(process.env.GURU_BENCH_MANUAL_STAGES ?? '');
const cpuProfileDir = process.env.GURU_BENCH_CPU_PROF ? resolve(process.env.GURU_BENCH_CPU_PROF) : undefined;
/** The issue's goals for the whole manual on a 2-core machine. */
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
 *   chunks: number, markdownMb: number, failures: ManualFailure[], checks: CheckResult[], cpuProfile?: string
 * }} ManualResult
 * @typedef {{ stage: string, seconds: number, note: string }} StageTiming
 */

/** The manual's HTML pages, by file name. */
function manualPages() {
  return readdirSync(manualDir)
    .filter((name) => name.endsWith('.html'))
    .sort();
}

/** Makes sure the manual is on disk: installs the Debian package when missing and allowed. Returns why not, or undefined. */
function ensureManual() {
  if (existsSync(manualDir)) return undefined;
  if (process.env.GURU_BENCH_MANUAL_DIR) return `${manualDir} does not exist`;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    return `${manualDir} is missing; install it with \`apt-get install -y ${MANUAL_PACKAGE}\` (as root) or set GURU_BENCH_MANUAL_DIR`;
  }
  console.log(`${manualDir} is missing; installing ${MANUAL_PACKAGE}...`);
  const aptGet = (...args) =>
    spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  let installed = aptGet('install', '-y', '--no-install-recommends', MANUAL_PACKAGE);
  // A fresh system may not know the package yet.
  if (!installed.error && installed.status !== 0 && aptGet('update').status === 0) {
    installed = aptGet('install', '-y', '--no-install-recommends', MANUAL_PACKAGE);
  }
  if (installed.error || installed.status !== 0 || !existsSync(manualDir)) {
    return `${MANUAL_PACKAGE} could not be installed (${installed.error?.message ?? `apt-get exited with ${installed.status}`})`;
  }
  return undefined;
}

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * A small static file server for `root` on 127.0.0.1: GET and HEAD, a content type by extension,
 * index.html for folders, 404 for anything missing or outside the folder.
 * @returns {Promise<{ origin: string, requests: () => number, close: () => Promise<void> }>}
 */
async function serveFolder(root) {
  let requests = 0;
  const server = createServer(async (request, response) => {
    requests += 1;
    const notFound = () => response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    let path;
    try {
      path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      notFound();
      return;
    }
    let file = resolve(root, `.${path}`);
    if (file !== root && !file.startsWith(`${root}${sep}`)) {
      notFound();
      return;
    }
    if (path.endsWith('/')) file = join(file, 'index.html');
    let body;
    try {
      body = await readFile(file);
    } catch {
      notFound();
      return;
    }
    response.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': body.length,
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests: () => requests,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** `default`, or `{ concurrency, perHost }` from `C/P`. */
function parseLimits(label) {
  if (label === 'default') return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(label);
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
    throw new Error(`GURU_BENCH_MANUAL_LIMITS: ${label} is neither "default" nor CONCURRENCY/PER_HOST (e.g. 8/8)`);
  }
  return { concurrency: Number(match[1]), perHost: Number(match[2]) };
}

/** The local engine on a fresh data directory that may fetch from 127.0.0.1. */
async function openManualBackend(dataDir, limits) {
  const { loadConfig } = await import('../dist/config.js');
  const { silentLogger } = await import('../dist/log.js');
  if (limits === undefined) {
    const { openBackend } = await import('../dist/compose.js');
    return openBackend(loadConfig({ flags: { dataDir, allowPrivateNetwork: true }, env: {} }), silentLogger);
  }
  // openBackend takes no processing limits; these runs open the engine the same way, with them.
  const { LocalEngine } = await import('../dist/engine/local-engine.js');
  const engine = LocalEngine.open({ dataDir, logger: silentLogger, allowPrivateNetwork: true, processing: limits });
  return { kind: 'local', assistant: engine, admin: engine, close: () => engine.close() };
}

function fileSize(path) {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

const databaseBytes = (dataDir) => ['guru.sqlite', 'guru.sqlite-wal', 'guru.sqlite-shm'].reduce((sum, name) => sum + fileSize(join(dataDir, name)), 0);

/** @returns {Promise<ManualResult>} */
async function runManual(origin, label) {
  const limits = parseLimits(label);
  const urls = manualPages().map((name) => `${origin}/${name}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-manual-'));
  const backend = await openManualBackend(dataDir, limits);
  let closed = false;
  try {
    const { assistant } = backend;
    const slug = 'postgresql';
    await backend.admin.createGuru({ slug, name: 'PostgreSQL 15 manual' });

    // The whole picture at the highest RSS seen: how much of it is V8's heap.
    let peak = process.memoryUsage();
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      if (now.rss > peak.rss) peak = now;
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

async function allSources(assistant, slug) {
  const sources = [];
  for (let page = 1; ; page += 1) {
    const listing = await assistant.listDataSources(slug, { page, page_size: 1000 });
    sources.push(...listing.results);
    if (listing.results.length === 0 || page * listing.page_size >= listing.count) return sources;
  }
}

/** Chunks and stored Markdown, read from the database file beside the engine (WAL lets a reader in). */
async function storedCounts(dataDir) {
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
async function runManualStages(origin) {
  const { HttpFetcher } = await import('../dist/net/http-fetcher.js');
  const { extractHtml } = await import('../dist/engine/ingest/extract/html.js');
  const { chunkMarkdown } = await import('../dist/engine/ingest/chunker.js');
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
  const backend = await openManualBackend(dataDir, undefined);
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
 * Self time of a V8 CPU profile by what the code does. Native frames (SQLite calls, for one) and
 * Node's own modules count for the nearest caller that says more.
 */
function profileBreakdown(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const parent = new Map();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const categoryOfNode = new Map();
  const categoryOf = (id) => {
    if (categoryOfNode.has(id)) return categoryOfNode.get(id);
    let category;
    for (let at = id; at !== undefined && category === undefined; at = parent.get(at)) {
      category = classifyFrame(byId.get(at).callFrame);
    }
    category ??= 'other (Node internals, timers)';
    categoryOfNode.set(id, category);
    return category;
  };
  const totals = new Map();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    total += delta;
    const category = categoryOf(id);
    totals.set(category, (totals.get(category) ?? 0) + delta);
  });
  return [...totals]
    .map(([category, micros]) => ({ category, seconds: micros / 1e6, share: micros / total }))
    .sort((a, b) => b.seconds - a.seconds);
}

/** @returns {string | undefined} */
function classifyFrame({ functionName, url }) {
  if (functionName === '(idle)') return 'idle (waiting for I/O)';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8/native, unattributed';
  const rules = [
    [/node_modules\/(?:linkedom|htmlparser2|entities|domhandler|uhyphen|cssom|css-select|nth-check)\//, 'HTML parsing and DOM (linkedom)'],
    [/node_modules\/@mozilla\/readability\//, 'Readability'],
    [/node_modules\/(?:turndown|@joplin\/turndown-plugin-gfm)\//, 'HTML to Markdown (turndown)'],
    [/dist\/engine\/ingest\/extract\//, 'extraction, ours (html.js, markdown.js)'],
    [/dist\/engine\/ingest\/chunker\.js/, 'chunking'],
    [/node_modules\/better-sqlite3\/|dist\/engine\/store\//, 'SQLite (store, FTS5)'],
    [/node_modules\/undici\/|dist\/net\/|node:(?:net|http|_http|internal\/stream|internal\/dns|dns)/, 'fetching (undici, sockets, decoding)'],
    [/dist\/engine\/ingest\/(?:processor|reading)\.js|dist\/engine\/ingest\/sources\//, 'job queue and readers'],
    [/dist\/engine\/search\/|dist\/engine\/answer\//, 'search and answers (quality checks)'],
    [/dist\/engine\/|dist\/core\/|dist\/compose\.js/, 'engine, other'],
    [/bench\/run\.js/, 'bench itself'],
  ];
  for (const [pattern, category] of rules) if (pattern.test(url)) return category;
  return undefined;
}

/** Runs one manual ingestion (or the stage timings) in a fresh Node process and reads back its result. */
async function runManualIsolated(mode, origin, label) {
  const outputDir = mkdtempSync(join(tmpdir(), 'guru-bench-out-'));
  const output = join(outputDir, 'result.json');
  const profileName = `manual-${label.replace('/', 'x')}-${Date.now()}.cpuprofile`;
  const profiling = cpuProfileDir !== undefined && mode === '--manual';
  if (profiling) mkdirSync(cpuProfileDir, { recursive: true });
  try {
    const flags = profiling ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`, `--cpu-prof-name=${profileName}`] : [];
    const child = spawn(process.execPath, [...flags, fileURLToPath(import.meta.url), mode, origin, label, output], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = await new Promise((done) => child.on('exit', (exitCode) => done(exitCode)));
    if (code !== 0) throw new Error(`${mode} ${label} exited with code ${code}`);
    const result = JSON.parse(readFileSync(output, 'utf8'));
    if (profiling) result.cpuProfile = join(cpuProfileDir, profileName);
    return result;
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

async function runManualPart() {
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
      runs.push(await runManualIsolated('--manual', site.origin, label));
    }
    const stages = manualStages ? (console.log('Timing the stages of ingestion apart...'), await runManualIsolated('--manual-stages', site.origin, 'stages')) : undefined;
    const profiles = runs.filter((run) => run.cpuProfile).map((run) => ({ limits: run.limits, file: run.cpuProfile, breakdown: profileBreakdown(run.cpuProfile) }));
    return { dir: manualDir, pages, goals: MANUAL_GOALS, runs, ...(stages ? { stages } : {}), ...(profiles.length > 0 ? { profiles } : {}) };
  } finally {
    await site.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Crawling the manual

const crawlRuns = positiveInt(process.env.GURU_BENCH_CRAWLS, 3);
const CRAWL_GOAL_SECONDS = 10;

/**
 * Crawls the manual from its root through the port, as a client would: start, then follow the
 * status (polled every 20 ms, so a time is at most that much late) until the crawl has ended.
 */
async function runCrawlPart() {
  const missing = ensureManual();
  if (missing !== undefined) {
    console.log(`\nNote: ${missing}; skipping the crawl benchmark.`);
    return { skipped: missing };
  }
  const pages = manualPages().length;
  const site = await serveFolder(manualDir);
  const { waitForCrawl } = await import('../dist/core/wait-for-crawl.js');
  const runs = [];
  try {
    for (let i = 0; i < crawlRuns; i++) {
      console.log(`Crawling the PostgreSQL manual (${pages} pages from ${site.origin}), run ${i + 1} of ${crawlRuns}...`);
      const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-crawl-'));
      const backend = await openManualBackend(dataDir, undefined);
      try {
        await backend.admin.createGuru({ slug: 'pg' });
        const started = performance.now();
        const crawl = await backend.assistant.startCrawl('pg', { url: `${site.origin}/`, ignore_query_params: true });
        const done = await waitForCrawl(backend.assistant, 'pg', crawl.id, { intervalMs: 20 });
        const seconds = (performance.now() - started) / 1000;
        runs.push({
          status: done.status,
          discovered: done.discovered_urls.length,
          seconds: Number(seconds.toFixed(2)),
          pagesPerSecond: Math.round(done.discovered_urls.length / seconds),
          error: done.error_message ?? null,
        });
      } finally {
        await backend.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await site.close();
  }
  return { pages, goalSeconds: CRAWL_GOAL_SECONDS, runs };
}

function printCrawl(result) {
  console.log(`\nCrawl of the PostgreSQL manual (${result.pages} HTML pages; goal: all found in under ${result.goalSeconds} s)`);
  console.log(
    table(
      ['run', 'status', 'discovered', 'seconds', 'pages/s', 'error'],
      result.runs.map((run, i) => [String(i + 1), run.status, String(run.discovered), run.seconds.toFixed(2), String(run.pagesPerSecond), run.error ?? '']),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Stdio start-up

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'guru-bench', version: '0.0.0' } },
})}\n`;

/** Spawns a stdio server, times spawn -> initialize response, reads its RSS, and stops it. */
async function startOnce(args) {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, GURU_LOG_LEVEL: 'error' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    stderr += text;
  });
  try {
    const elapsed = await new Promise((done, fail) => {
      let buffered = '';
      const timeout = setTimeout(() => fail(new Error(`no initialize response within 30 s; stderr: ${stderr}`)), 30_000);
      child.once('exit', (code) => fail(new Error(`server exited with code ${code} before answering; stderr: ${stderr}`)));
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (text) => {
        buffered += text;
        let newline;
        while ((newline = buffered.indexOf('\n')) !== -1) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          let message;
          try {
            message = JSON.parse(line);
          } catch {
            clearTimeout(timeout);
            fail(new Error(`non-JSON line on stdout: ${line.slice(0, 200)}`));
            return;
          }
          if (message.id === 1) {
            clearTimeout(timeout);
            if (message.error) fail(new Error(`initialize failed: ${JSON.stringify(message.error)}`));
            else done(performance.now() - started);
          }
        }
      });
      child.stdin.write(INITIALIZE);
    });
    return { ms: elapsed, rssBytes: rssOf(child.pid) };
  } finally {
    await stop(child);
  }
}

/** Resident set size of a running process, from /proc (Linux) or ps. */
function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    if (kb) return Number(kb[1]) * 1024;
  } catch {
    // not Linux; fall through
  }
  return Number.NaN;
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGTERM'), 2000);
  const hardTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  clearTimeout(hardTimer);
}

/** @returns {Promise<StartupResult>} */
async function measureStartup(server, args) {
  const first = await startOnce(args);
  const runs = [];
  for (let run = 0; run < starts; run += 1) runs.push(await startOnce(args));
  const times = runs.map((r) => r.ms);
  return {
    server,
    firstMs: first.ms,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    rssMb: mb(median(runs.map((r) => r.rssBytes))),
  };
}

async function runStartup() {
  const cli = join(repoRoot, 'dist', 'bin', 'guru-mcp.js');
  const results = [];
  results.push(await measureStartup('sdk minimal server', [join(repoRoot, 'bench', 'minimal-server.js')]));
  if (!existsSync(cli)) {
    console.log(`\nNote: ${cli} is missing (CLI not built yet); skipping the guru-mcp stdio start-up benchmark.`);
    return results;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-stdio-'));
  try {
    // The first start creates the database; it is reported as firstMs, the median covers later starts.
    results.push(await measureStartup('guru-mcp stdio', [cli, 'stdio', '--data-dir', dataDir]));
  } catch (error) {
    console.log(`\nNote: guru-mcp stdio could not be measured: ${error.message.trim()}`);
    results.push({ server: 'guru-mcp stdio', error: error.message.trim() });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Report

function table(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map(String));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const line = (row) => row.map((cell, column) => cell.padStart(widths[column])).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function printVariants(variants) {
  console.log('\nIndexing (NFCorpus, 3,633 text sources)');
  console.log(
    table(
      ['variant', 'ok', 'failed', 'submit s', 'total s', 'docs/s', 'peak RSS MB'],
      variants.map((v) => [
        v.variant,
        v.succeeded,
        v.failed + v.pending,
        fixed(v.submitSeconds, 2),
        fixed(v.indexSeconds, 2),
        fixed(v.docsPerSecond, 0),
        fixed(v.peakRssMb, 0),
      ]),
    ),
  );
  console.log('\nRetrieval (323 test queries; nDCG@10 graded; BM25 reference 0.325)');
  console.log(
    table(
      ['variant', 'nDCG@10', 'recall@10', 'MRR@10', 'dup titles'],
      variants.map((v) => [v.variant, fixed(v.ndcg10, 4), fixed(v.recall10, 4), fixed(v.mrr10, 4), v.duplicateTitles]),
    ),
  );
  console.log(`\nSearch latency in ms (${rounds} rounds x 323 queries after a warm-up pass)`);
  const rows = [];
  for (const v of variants) {
    for (const [series, stats] of Object.entries(v.latencyMs)) {
      rows.push([
        v.variant,
        series === 'withUser' ? 'external_user_id' : 'anonymous',
        fixed(stats.p50, 2),
        fixed(stats.p95, 2),
        fixed(stats.p99, 2),
        fixed(stats.mean, 2),
      ]);
    }
  }
  console.log(table(['variant', 'series', 'p50', 'p95', 'p99', 'mean'], rows));
}

function printManual(manual) {
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
    console.log(`\nCPU profile of the run with limits ${profile.limits} (${profile.file}): self time by what the code does`);
    console.log(
      table(
        ['category', 'seconds', 'share'],
        profile.breakdown.map((row) => [row.category, fixed(row.seconds, 2), `${fixed(row.share * 100, 1)} %`]),
      ),
    );
  }
}

function printStartup(startup) {
  console.log(`\nStdio start-up: spawn -> initialize response (median of ${starts}; first = fresh start)`);
  console.log(
    table(
      ['server', 'first ms', 'median ms', 'min ms', 'max ms', 'RSS MB'],
      startup.map((s) => [s.server, fixed(s.firstMs, 1), fixed(s.medianMs, 1), fixed(s.minMs, 1), fixed(s.maxMs, 1), fixed(s.rssMb, 1)]),
    ),
  );
}

const PARTS = ['nfcorpus', 'manual', 'crawl', 'startup'];

/** The parts GURU_BENCH_PARTS asks for, in their fixed order. */
function selectedParts() {
  const asked = (process.env.GURU_BENCH_PARTS ?? PARTS.join(','))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const unknown = asked.filter((part) => !PARTS.includes(part));
  if (unknown.length > 0) throw new Error(`GURU_BENCH_PARTS: unknown part ${unknown.join(', ')}; known: ${PARTS.join(', ')}`);
  return new Set(asked);
}

async function runNfcorpusPart() {
  if (!existsSync(join(dataPath, 'corpus.jsonl'))) {
    const reason = `NFCorpus not found at ${dataPath} (set GURU_BENCH_DATA to the folder with corpus.jsonl, queries.jsonl, qrels-test.tsv)`;
    console.log(`Note: ${reason}; skipping the indexing and search benchmarks.`);
    return { skipped: reason };
  }
  const names = (process.env.GURU_BENCH_VARIANTS ?? 'heading,plain')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) console.log('Note: GURU_BENCH_VARIANTS is empty; skipping the indexing and search benchmarks.');
  const variants = [];
  for (const name of names) {
    console.log(`Indexing and searching NFCorpus, variant "${name}"...`);
    variants.push(await runVariantIsolated(name));
  }
  if (variants.length > 0) printVariants(variants);
  return variants;
}

async function main() {
  const parts = selectedParts();
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: cpus().length,
    settings: { parts: [...parts], dataPath, batchSize, rounds, starts, manualDir, manualLimits, manualStages },
    nfcorpus: /** @type {VariantResult[] | { skipped: string }} */ ({ skipped: 'not asked for (GURU_BENCH_PARTS)' }),
    manual: /** @type {object} */ ({ skipped: 'not asked for (GURU_BENCH_PARTS)' }),
    crawl: /** @type {object} */ ({ skipped: 'not asked for (GURU_BENCH_PARTS)' }),
    startup: /** @type {StartupResult[] | { skipped: string }} */ ({ skipped: 'not asked for (GURU_BENCH_PARTS)' }),
  };

  if (parts.has('nfcorpus')) report.nfcorpus = await runNfcorpusPart();

  if (parts.has('manual')) {
    report.manual = await runManualPart();
    if (!report.manual.skipped) printManual(report.manual);
  }

  if (parts.has('crawl')) {
    report.crawl = await runCrawlPart();
    if (!report.crawl.skipped) printCrawl(report.crawl);
  }

  if (parts.has('startup')) {
    report.startup = await runStartup();
    printStartup(report.startup);
  }

  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, 'latest.json');
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nWrote ${file}`);
}

const [, , mode, ...args] = process.argv;
if (mode === '--variant') {
  const [variant, output] = args;
  const result = await runVariant(variant);
  writeFileSync(output, JSON.stringify(result));
} else if (mode === '--manual' || mode === '--manual-stages') {
  const [origin, label, output] = args;
  const result = mode === '--manual' ? await runManual(origin, label) : await runManualStages(origin);
  writeFileSync(output, JSON.stringify(result));
} else {
  await main();
}
