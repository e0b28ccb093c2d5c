// `npm run bench`: indexing throughput, retrieval quality (nDCG@10 on BEIR NFCorpus), search latency,
// ingestion of the PostgreSQL 15 manual as website sources, crawling it, ingesting it through REST
// while a client searches and asks, offline answer quality on real documentation, and stdio start-up cost against a minimal SDK server. Plain ESM
// on top of the built dist/. Each part is a module of bench/parts/ (see bench/lib/part.js to add one).
//
// Settings (environment):
//   GURU_BENCH_PARTS     comma list of parts to run: nfcorpus,manual,crawl,under-load,qa,llm,speech,speech-load,startup,listing,asks,evidence,stores
//                        (default: all)
//   GURU_BENCH_CRAWLS    timed crawls of the PostgreSQL manual (default: 3)
//   GURU_BENCH_DATA      NFCorpus folder (default: ../shared/bench/nfcorpus from the repo root)
//   GURU_BENCH_VARIANTS  comma list of document shapes to index: heading,plain (default: both;
//                        empty: no NFCorpus part)
//   GURU_BENCH_BATCH     sources per createDataSources call, texts and URLs (default: 100)
//   GURU_BENCH_ROUNDS    timed rounds over the test queries, per latency series (default: 3)
//   GURU_BENCH_REST_VARIANTS  comma list of NFCorpus variants whose search is also timed in turns
//                        against raw FTS5 and through REST on 127.0.0.1 (default: the first variant)
//   GURU_BENCH_BASELINE  another checkout's folder, built (e.g. main's): its engine and its server
//                        join those turns, for before and after in one run
//   GURU_BENCH_SERVE_FLAGS  node flags for those servers, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof
//   GURU_BENCH_STARTS    timed start-ups per server, in rounds of one start each (default: 20)
//   GURU_BENCH_INSTALLED  a folder where the packed package is installed (npm install ./guru-mcp-*.tgz):
//                        startup also starts its command, as npx runs it (default: not measured)
//   GURU_BENCH_SPEECH_RUNS  timed readings of the 200-word answer, after a first one (default: 5)
//   GURU_BENCH_SPEECH_LOAD_RUNS     runs of searches beside long speech streams (default: 1)
//   GURU_BENCH_SPEECH_LOAD_SECONDS  how long the streams are kept in flight, each run (default: 20)
//   GURU_BENCH_SPEECH_LOAD_STREAMS  streams one key keeps in flight (default: 20)
//   GURU_BENCH_SPEECH_LOAD_IDLE     searches timed on the idle server (default: 300)
//   GURU_BENCH_SPEECH_LOAD_BEFORE   another build's dist/bin/guru-mcp.js, run in turn with this one
//   GURU_BENCH_MANUAL_DIR     the PostgreSQL 15 manual's HTML folder (default:
//                        /usr/share/doc/postgresql-doc-15/html; when it is missing and the bench runs
//                        as root, `apt-get install -y postgresql-doc-15` is tried, else the part is skipped)
//   GURU_BENCH_MANUAL_LIMITS  comma list of processing limits to ingest the manual with, each
//                        `default` (openBackend, the engine's own limits) or CONCURRENCY/PER_HOST for
//                        LocalEngine.open({ processing }), e.g. default,8/8,12/12 (default: default)
//   GURU_BENCH_MANUAL_STAGES  1: also time the stages of ingestion apart (fetch, HTML extraction,
//                        chunking, SQLite) on the same pages (default: 0)
//   GURU_BENCH_CPU_PROF  a folder: each manual ingestion run writes V8 CPU profiles there, one per
//                        thread (node --cpu-prof), and the bench prints where their time went
//   GURU_BENCH_LOAD_RUNS      ingestions of the manual under load (default: 1)
//   GURU_BENCH_LOAD_IDLE      searches and answers timed on the idle server, each (default: 200)
//   GURU_BENCH_EXTRACTION_THREADS  GURU_EXTRACTION_THREADS of the server under load (default: the
//                        engine's own, one per core)
//   GURU_BENCH_QA_SETS     question sets of bench/qa/ (default: sqlite,postgresql,python,git,django,apache,node,pytest,sphinx;
//                        postgresql, python, git, django, apache, node, pytest and sphinx are held out; a set's Debian package is
//                        installed when missing and the bench runs as root)
//   GURU_BENCH_QA_DATA     folder to keep and reuse each set's ingested guru (default: temporary)
//   GURU_BENCH_QA_VERBOSE  1: print every answer's verdict (evidence: every question whose terms ask's text lacks)
//   GURU_BENCH_QA_STORES   comma list of stores the qa part answers on: sqlite, postgres (a throwaway PostgreSQL 15 on
//                        127.0.0.1; skipped without Debian's postgresql-15). With both, the figures side by side and every
//                        answer that differs (default: sqlite; GURU_BENCH_QA_DATA keeps the SQLite gurus only)
//   GURU_BENCH_EVIDENCE_BUDGETS  evidence_tokens budgets of the evidence part (default: 500,1000,1500,3000;
//                        the QA sets as GURU_BENCH_QA_SETS names them)
//   GURU_BENCH_LLM_QUESTIONS   questions of the sqlite set answered by the stand-in model (default: 20)
//   GURU_BENCH_LLM_LATENCY_MS  the stand-in's wait before each reply (default: 300)
//   GURU_BENCH_LLM_TOKEN_MS    the stand-in's wait between streamed words (default: 10)
//   GURU_BENCH_LISTING_ASKS  asks before resources/list is counted again, in the listing part (default: 50)
//   GURU_BENCH_STORES_STEPS  steps of the stores part (SQLite against PostgreSQL + Redis, started on
//                        127.0.0.1 from Debian's postgresql-15 and redis-server; the part is skipped
//                        without them): retrieval,ingestion,throughput,kill (default: all four)
//   GURU_BENCH_STORES_KILLS       kill -9 runs (default: 5); GURU_BENCH_STORES_KILL_PAGES pages each (default: 300)
//   GURU_BENCH_STORES_CONCURRENCY clients at once in the throughput step (default: 4)
//   GURU_BENCH_STORES_SEARCHES / GURU_BENCH_STORES_ANSWERS  requests per series (default: 400 / 200)
//   GURU_BENCH_ASKS_CONCURRENT  asks of the largest default size sent at once to one server (default: 4)
//
// Parts that measure memory or CPU run their work in child processes of their own; the manual's
// pages are served by this process.
import console from 'node:console';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { repoRoot } from './lib/common.js';
import crawl from './parts/crawl.js';
import llm from './parts/llm.js';
import manual from './parts/manual.js';
import nfcorpus from './parts/nfcorpus.js';
import qa from './parts/qa.js';
import speech from './parts/speech.js';
import speechLoad from './parts/speech-load.js';
import startup from './parts/startup.js';
import stores from './parts/stores.js';
import asks from './parts/asks.js';
import evidence from './parts/evidence.js';
import listing from './parts/listing.js';
import underLoad from './parts/under-load.js';

/** Every part, in the order they run. @type {import('./lib/part.js').BenchPart[]} */
const PARTS = [nfcorpus, manual, crawl, underLoad, qa, llm, speech, speechLoad, startup, listing, asks, evidence, stores];

/** The parts GURU_BENCH_PARTS asks for, in their fixed order. */
function selectedParts() {
  const known = PARTS.map((part) => part.name);
  const asked = (process.env.GURU_BENCH_PARTS ?? known.join(','))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const unknown = asked.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`GURU_BENCH_PARTS: unknown part ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return PARTS.filter((part) => asked.includes(part.name));
}

const selected = selectedParts();
const report = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpu: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  // Other work on the machine skews every timing; the load averages say how much there was.
  loadAverage: { before: loadavg() },
  parts: selected.map((part) => part.name),
};
for (const part of PARTS) report[part.name] = { skipped: 'not asked for (GURU_BENCH_PARTS)' };

for (const part of selected) {
  const result = await part.run();
  report[part.name] = result;
  if (!result.skipped) part.print(result);
}
report.loadAverage.after = loadavg();

const resultsDir = join(repoRoot, 'bench', 'results');
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, 'latest.json');
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nLoad average (1, 5, 15 min) before: ${report.loadAverage.before.map((n) => n.toFixed(2)).join(', ')}; after: ${report.loadAverage.after.map((n) => n.toFixed(2)).join(', ')}`);
console.log(`Wrote ${file}`);
