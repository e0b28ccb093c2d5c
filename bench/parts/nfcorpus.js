// Part `nfcorpus`: indexing throughput, retrieval quality (nDCG@10 on BEIR NFCorpus) and search
// latency, one indexing variant per child process.
import console from 'node:console';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { batchSize, dist, fixed, latencyStats, mb, mean, positiveInt, repoRoot, table, timed } from '../lib/common.js';
import { countStatuses, waitUntilProcessed } from '../lib/engine.js';
import { runIsolated } from '../lib/isolated.js';
import { measureSearchLatency } from '../lib/search-latency.js';

const resultsDir = join(repoRoot, 'bench', 'results');
const dataPath = resolve(process.env.GURU_BENCH_DATA ?? join(repoRoot, '..', 'shared', 'bench', 'nfcorpus'));
const rounds = positiveInt(process.env.GURU_BENCH_ROUNDS, 3);
/** Variants whose search is also timed against raw FTS5 and through REST (default: the first). */
const restVariants = process.env.GURU_BENCH_REST_VARIANTS?.split(',').map((name) => name.trim());

/** How a corpus document becomes a text source. */
const VARIANTS = {
  /** The title as a Markdown heading, so that it becomes the chunks' heading path. */
  heading: (doc) => `# ${doc.title}\n\n${doc.text}`,
  /** The title as the first paragraph. */
  plain: (doc) => `${doc.title}\n\n${doc.text}`,
};

/**
 * @typedef {{ _id: string, title: string, text: string }} CorpusDoc
 * @typedef {import('../lib/common.js').LatencyStats} LatencyStats
 * @typedef {{
 *   variant: string, documents: number, succeeded: number, failed: number, pending: number,
 *   submitSeconds: number, indexSeconds: number, docsPerSecond: number,
 *   peakRssMb: number, maxRssMb: number,
 *   queries: number, ndcg10: number, recall10: number, mrr10: number, duplicateTitles: number,
 *   latencyMs: { anonymous: LatencyStats, withUser: LatencyStats },
 *   searchLatency?: import('../lib/search-latency.js').SearchLatency
 * }} VariantResult
 */

// ---------------------------------------------------------------------------------------------
// Data

/** @returns {CorpusDoc[]} */
export function readCorpus() {
  return readJsonLines(join(dataPath, 'corpus.jsonl'));
}

/** @returns {Map<string, string>} query id -> text, test queries only */
export function readTestQueries(qrels) {
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
export function readQrels() {
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
export function ndcgAt10(ranked, judged) {
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


// ---------------------------------------------------------------------------------------------
// One indexing variant (runs in a child process)

/** @returns {Promise<VariantResult>} */
export async function runVariant(variant, withRest = false) {
  const toContent = VARIANTS[variant];
  if (!toContent) throw new Error(`unknown variant ${variant}; known: ${Object.keys(VARIANTS).join(', ')}`);
  const { openBackend } = await dist('compose.js');
  const { loadConfig } = await dist('config.js');
  const { silentLogger } = await dist('log.js');

  const corpus = readCorpus();
  const qrels = readQrels();
  const queries = readTestQueries(qrels);

  const dataDir = mkdtempSync(join(tmpdir(), `guru-bench-${variant}-`));
  const backend = await openBackend(loadConfig({ flags: { dataDir }, env: {} }), silentLogger);
  try {
    const { assistant } = backend;
    const slug = 'nfcorpus';
    const { api_key: apiKey } = await backend.admin.createGuru({ slug, name: `NFCorpus (${variant})` });

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

    const searchLatency = withRest ? await measureSearchLatency({ dataDir, slug, apiKey, assistant, questions: texts, rounds }) : undefined;

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
      ...(searchLatency === undefined ? {} : { searchLatency }),
    };
  } finally {
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function print(variants) {
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
  for (const v of variants) {
    if (v.searchLatency === undefined) continue;
    const { series, mismatches, questions } = v.searchLatency;
    const raw = series[0].latencyMs;
    console.log(
      `\nSearch beyond FTS5, variant "${v.variant}" (ms; ${rounds} rounds x ${questions} queries, the series in turns; ` +
        `x = p50 / raw FTS5's p50; CPU = CPU time per search of the process that does it, server or this one; ${mismatches === 0 ? 'the same sources from every series' : `${mismatches} DIFFERENT result lists`})`,
    );
    console.log(
      table(
        ['series', 'p50', 'p95', 'p99', 'mean', 'x p50', '+ms p50', 'CPU ms'],
        series.map(({ name, latencyMs: s, cpuMsPerSearch }) => [
          name,
          fixed(s.p50, 2),
          fixed(s.p95, 2),
          fixed(s.p99, 2),
          fixed(s.mean, 2),
          fixed(s.p50 / raw.p50, 2),
          fixed(s.p50 - raw.p50, 2),
          fixed(cpuMsPerSearch, 2),
        ]),
      ),
    );
  }
}

async function run() {
  if (!existsSync(join(dataPath, 'corpus.jsonl'))) {
    const reason = `NFCorpus not found at ${dataPath} (set GURU_BENCH_DATA to the folder with corpus.jsonl, queries.jsonl, qrels-test.tsv)`;
    console.log(`Note: ${reason}; skipping the indexing and search benchmarks.`);
    return { skipped: reason };
  }
  const names = (process.env.GURU_BENCH_VARIANTS ?? 'heading,plain')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) {
    console.log('Note: GURU_BENCH_VARIANTS is empty; skipping the indexing and search benchmarks.');
    return { skipped: 'GURU_BENCH_VARIANTS is empty' };
  }
  const variants = [];
  for (const name of names) {
    console.log(`Indexing and searching NFCorpus, variant "${name}"...`);
    const withRest = restVariants === undefined ? name === names[0] : restVariants.includes(name);
    variants.push(await runIsolated(import.meta.url, 'runVariant', [name, withRest]));
  }
  return variants;
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'nfcorpus', run, print };
