// `npm run bench`: indexing throughput, retrieval quality (nDCG@10 on BEIR NFCorpus), search latency,
// and stdio start-up cost against a minimal SDK server. Plain ESM on top of the built dist/.
//
// Settings (environment):
//   GURU_BENCH_DATA      NFCorpus folder (default: ../shared/bench/nfcorpus from the repo root)
//   GURU_BENCH_VARIANTS  comma list of document shapes to index: heading,plain (default: both;
//                        empty: measure start-up only)
//   GURU_BENCH_BATCH     text sources per createDataSources call (default: 100)
//   GURU_BENCH_ROUNDS    timed rounds over the test queries, per latency series (default: 3)
//   GURU_BENCH_STARTS    timed start-ups per server (default: 10)
//
// Each indexing variant runs in its own child process so that its peak RSS is its own.
import { spawn } from 'node:child_process';
import console from 'node:console';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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

function printStartup(startup) {
  console.log(`\nStdio start-up: spawn -> initialize response (median of ${starts}; first = fresh start)`);
  console.log(
    table(
      ['server', 'first ms', 'median ms', 'min ms', 'max ms', 'RSS MB'],
      startup.map((s) => [s.server, fixed(s.firstMs, 1), fixed(s.medianMs, 1), fixed(s.minMs, 1), fixed(s.maxMs, 1), fixed(s.rssMb, 1)]),
    ),
  );
}

async function main() {
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: cpus().length,
    settings: { dataPath, batchSize, rounds, starts },
    nfcorpus: /** @type {VariantResult[] | { skipped: string }} */ ({ skipped: '' }),
    startup: /** @type {StartupResult[]} */ ([]),
  };

  if (!existsSync(join(dataPath, 'corpus.jsonl'))) {
    const reason = `NFCorpus not found at ${dataPath} (set GURU_BENCH_DATA to the folder with corpus.jsonl, queries.jsonl, qrels-test.tsv)`;
    console.log(`Note: ${reason}; skipping the indexing and search benchmarks.`);
    report.nfcorpus = { skipped: reason };
  } else {
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
    report.nfcorpus = variants;
    if (variants.length > 0) printVariants(variants);
  }

  report.startup = await runStartup();
  printStartup(report.startup);

  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, 'latest.json');
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nWrote ${file}`);
}

if (process.argv[2] === '--variant') {
  const [, , , variant, output] = process.argv;
  const result = await runVariant(variant);
  writeFileSync(output, JSON.stringify(result));
} else {
  await main();
}
