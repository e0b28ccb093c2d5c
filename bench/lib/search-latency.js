// What a search costs beyond FTS5, measured in one run over one index: FTS5 alone on a connection of
// its own (the question's words, quoted and ORed as the engine sends them, ranked by bm25() with the
// engine's column weights, top 20 rows), the engine's semanticSearch call in this process, and the
// same search through REST on 127.0.0.1 (`guru-mcp serve` of the built bundle, in a child process,
// its rate limiter on at a limit no run reaches; the client is a small process of its own, so that
// this one's engine work, its heap and its timers do not slow the client down). The series take turns question by question, so
// that other work on the machine falls on all of them alike. GURU_BENCH_BASELINE names another
// checkout's folder (built, e.g. main's): its engine and its server join the turns, for before and
// after in one run. Every series must return the same sources for every question.
import { fork } from 'node:child_process';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { latencyStats, repoRoot } from './common.js';
import { cpuSeconds, startServe } from './serve-process.js';

/** The engine's BM25 column weights (src/engine/search/retriever.ts): title, headings, body. */
const WEIGHTS = '2.0, 1.5, 1.0';
/** What the engine asks FTS5 for: twice the 10 sources it answers with. */
const RAW_LIMIT = 20;
/** High enough that no run is refused, so that the limiter's cost is in every request as in production. */
const RATE_LIMIT_PER_MINUTE = '1000000';

/**
 * @typedef {import('./common.js').LatencyStats} LatencyStats
 * @typedef {{ name: string, latencyMs: LatencyStats, cpuMsPerSearch: number }} SeriesResult
 * @typedef {{ rounds: number, questions: number, series: SeriesResult[], mismatches: number }} SearchLatency
 */

/** `guru-mcp serve` of a checkout on the data directory, port 0; resolves once it listens. */
function startServer(checkout, dataDir) {
  const env = {
    ...process.env,
    GURU_DATA_DIR: dataDir,
    GURU_RATE_LIMIT_PER_MINUTE: RATE_LIMIT_PER_MINUTE,
    GURU_LOG_LEVEL: 'info',
  };
  const nodeFlags = process.env.GURU_BENCH_SERVE_FLAGS?.split(' ').filter(Boolean) ?? [];
  return startServe(join(checkout, 'dist', 'bin', 'guru-mcp.js'), env, { nodeFlags });
}

/** CPU milliseconds (user and system, all threads) a process has used so far; NaN where /proc is missing. */
function processCpuMs(pid) {
  try {
    return cpuSeconds(pid).process * 1000;
  } catch {
    return Number.NaN;
  }
}

/**
 * The REST client: lib/rest-client.js in a process of its own, which times each search it is sent
 * and answers with the milliseconds and the sources.
 */
function startRestClient() {
  const child = fork(fileURLToPath(new URL('./rest-client.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map();
  let next = 0;
  child.on('message', ({ id, ms, response, error }) => {
    const call = waiting.get(id);
    waiting.delete(id);
    if (error === undefined) call?.done({ ms, response });
    else call?.fail(new Error(error));
  });
  return {
    /** @returns {Promise<{ ms: number, response: any }>} */
    search: (origin, slug, apiKey, question) =>
      new Promise((done, fail) => {
        next += 1;
        waiting.set(next, { done, fail });
        child.send({ id: next, origin, slug, apiKey, question });
      }),
    stop: () => {
      child.disconnect();
    },
  };
}

/** The FTS5 MATCH expression the engine builds for a question (src/engine/search/query.ts). */
async function matchBuilder(checkout) {
  const { parseQuery } = await import(pathToFileURL(join(checkout, 'dist', 'engine', 'search', 'query.js')).href);
  return (question) => parseQuery(question).match;
}

/**
 * Times every series over `questions`, `rounds` times, taking turns per question.
 * @param {{ dataDir: string, slug: string, apiKey: string, assistant: any, questions: string[], rounds: number }} setup
 * @returns {Promise<SearchLatency>}
 */
export async function measureSearchLatency({ dataDir, slug, apiKey, assistant, questions, rounds }) {
  const baseline = process.env.GURU_BENCH_BASELINE ? resolve(process.env.GURU_BENCH_BASELINE) : undefined;
  const toMatch = await matchBuilder(repoRoot);
  const matches = questions.map(toMatch);

  const raw = new Database(join(dataDir, 'guru.sqlite'), { readonly: true });
  const fts = raw.prepare(
    `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, ${WEIGHTS}) LIMIT ${RAW_LIMIT}`,
  );

  const servers = [];
  const backends = [];
  const client = startRestClient();
  try {
    /**
     * Each series, with the CPU milliseconds used so far by whoever does its work: this process
     * (raw FTS5, the engines: their log writes after the answer are counted wherever they fall)
     * or the server.
     * A series that times itself (the REST client) says how long its search took.
     * @type {{ name: string, run: (index: number) => Promise<{ found?: string[], ms?: number }>, cpuMs: () => number }[]}
     */
    const series = [];
    const ownCpuMs = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    series.push({
      name: 'raw FTS5',
      run: async (index) => {
        if (matches[index] !== undefined) fts.all(matches[index]);
        return {};
      },
      cpuMs: ownCpuMs,
    });
    const titles = (response) => response.sources.map((source) => `${source.title}\u0000${source.link}`);
    const engines = [{ label: '', assistant }];
    if (baseline) {
      const { openBackend } = await import(pathToFileURL(join(baseline, 'dist', 'compose.js')).href);
      const { loadConfig } = await import(pathToFileURL(join(baseline, 'dist', 'config.js')).href);
      const { silentLogger } = await import(pathToFileURL(join(baseline, 'dist', 'log.js')).href);
      const backend = await openBackend(loadConfig({ flags: { dataDir }, env: {} }), silentLogger);
      backends.push(backend);
      engines.push({ label: ' (baseline)', assistant: backend.assistant });
    }
    for (const { label, assistant: engine } of engines) {
      series.push({
        name: `engine${label}`,
        run: async (index) => ({ found: titles(await engine.semanticSearch(slug, { question: questions[index] })) }),
        cpuMs: ownCpuMs,
      });
    }
    for (const [label, checkout] of [['', repoRoot], ...(baseline ? [[' (baseline)', baseline]] : [])]) {
      const server = await startServer(checkout, dataDir);
      servers.push(server);
      series.push({
        name: `REST${label}`,
        run: async (index) => {
          const { ms, response } = await client.search(server.origin, slug, apiKey, questions[index]);
          return { found: titles(response), ms };
        },
        cpuMs: () => processCpuMs(server.pid),
      });
    }

    // A warm-up pass, which also checks that every series finds the same sources.
    let mismatches = 0;
    for (let index = 0; index < questions.length; index += 1) {
      let expected;
      for (const { run } of series) {
        const { found } = await run(index);
        if (found === undefined) continue;
        const text = JSON.stringify(found);
        if (expected === undefined) expected = text;
        else if (text !== expected) mismatches += 1;
      }
    }

    const samples = series.map(() => []);
    const cpu = series.map(() => 0);
    for (let round = 0; round < rounds; round += 1) {
      for (let index = 0; index < questions.length; index += 1) {
        // The order turns too, so that no series always runs right after another.
        for (let turn = 0; turn < series.length; turn += 1) {
          const which = (turn + index + round) % series.length;
          const { run, cpuMs } = series[which];
          const cpuBefore = cpuMs();
          const started = performance.now();
          const { ms } = await run(index);
          samples[which].push(ms ?? performance.now() - started);
          cpu[which] += cpuMs() - cpuBefore;
        }
      }
    }
    return {
      rounds,
      questions: questions.length,
      series: series.map(({ name }, which) => ({
        name,
        latencyMs: latencyStats(samples[which]),
        cpuMsPerSearch: cpu[which] / samples[which].length,
      })),
      mismatches,
    };
  } finally {
    client.stop();
    for (const server of servers) await server.stop();
    for (const backend of backends) await backend.close();
    raw.close();
  }
}
