// Part `speech-load`: what speech does to another client. A running `guru-mcp serve` (the built
// bundle, on 127.0.0.1, no request rate limit) holds a guru of this repository's source files; one
// client searches it, one request at a time, first alone (idle), then for a fixed time while one
// key keeps 20 offline-voice streams of 20,000 characters in flight (busy): each stream is read as
// fast as it comes, a refused one (429 or 503) is sent again 250 ms later, and when the time is up
// the streams still running are left by their clients. Reported: the searching client's p50, p99
// and maximum, the streams answered, refused and finished, the most eSpeak NG processes the server
// ran at once, whether they all ended once the clients left, and the server's CPU.
//
// GURU_BENCH_SPEECH_LOAD_BEFORE names another build's dist/bin/guru-mcp.js (e.g. of the last
// release): its runs are interleaved with this build's, before / after in turn, on the same data.
import { spawn, spawnSync } from 'node:child_process';
import console from 'node:console';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetch } from 'undici';
import { fixed, latencyStats, positiveInt, repoRoot, table } from '../lib/common.js';
import { cpuSeconds, startServe } from '../lib/serve-process.js';

const runs = positiveInt(process.env.GURU_BENCH_SPEECH_LOAD_RUNS, 1);
const seconds = positiveInt(process.env.GURU_BENCH_SPEECH_LOAD_SECONDS, 20);
const streams = positiveInt(process.env.GURU_BENCH_SPEECH_LOAD_STREAMS, 20);
const idleSearches = positiveInt(process.env.GURU_BENCH_SPEECH_LOAD_IDLE, 300);
const before = process.env.GURU_BENCH_SPEECH_LOAD_BEFORE;
const CLI = join(repoRoot, 'dist', 'bin', 'guru-mcp.js');

/** The goal: another client's search p99 while speech runs. */
const GOAL_P99_MS = 50;

/** 20,000 characters of prose, the longest text a stream takes. */
const TEXT = (() => {
  const paragraph =
    'Each guru has its own API keys, and a key reaches only the guru it was made for. To rotate a key without downtime, create the new key first, deploy it to every client that calls the service, and only then delete the old one. Clients that still send the old key get an error from that moment on, so check your logs for such refusals during the change. ';
  return paragraph.repeat(Math.ceil(20_000 / paragraph.length)).slice(0, 20_000);
})();

const QUESTIONS = ['speech stream', 'rate limit', 'extraction worker', 'session', 'crawl robots', 'embeddings', 'answer trust', 'attachment limits', 'data source reindex', 'MCP tool'];

/** This repository's TypeScript sources, as text sources: real words to search. */
function sources() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) found.push({ name: relative(repoRoot, path), content: readFileSync(path, 'utf8') });
    }
  };
  walk(join(repoRoot, 'src'));
  return found;
}

async function startServer(cli, dataDir) {
  const env = { ...process.env, GURU_DATA_DIR: dataDir, GURU_RATE_LIMIT_PER_MINUTE: '0', GURU_LOG_LEVEL: 'warn' };
  const created = spawnSync(process.execPath, [cli, 'guru', 'create', 'docs', '--json'], { env, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`guru create failed: ${created.stderr}`);
  const key = JSON.parse(created.stdout).api_key;
  const server = await startServe(cli, env, { detached: true });
  return { ...server, key };
}

function post(server, path, body, signal) {
  return fetch(`${server.origin}/api/v1/docs/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.key },
    body: JSON.stringify(body),
    signal,
  });
}

/** The eSpeak NG processes the server runs now (its children). */
function espeakProcesses(pid) {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.includes('(espeak-ng)') && Number(stat.split(') ').at(-1).split(' ')[1]) === pid) count++;
    } catch {
      // It ended while being read.
    }
  }
  return count;
}

/** Sequential searches until `done()` (at least `minimum`): their latencies in ms; failures are counted apart. */
async function searchLoop(server, done, minimum = 0) {
  const samples = [];
  let failed = 0;
  for (let index = 0; samples.length < minimum || !done(); index++) {
    const started = performance.now();
    try {
      const response = await post(server, 'semantic-search', { question: QUESTIONS[index % QUESTIONS.length] });
      await response.text();
      if (!response.ok) throw new Error(`search answered ${response.status}`);
      samples.push(performance.now() - started);
    } catch (error) {
      if (++failed > 1000) throw error;
      await sleep(10);
    }
  }
  return Object.assign(samples, { failed });
}

const stats = (samples) => ({ ...latencyStats(samples), max: Math.max(...samples), failed: samples.failed });

/** The attacking client, in a child process: `stop()` makes it leave its streams and resolves to its tally. */
function startAttacker(server) {
  const args = JSON.stringify({ origin: server.origin, key: server.key, streams, text: TEXT });
  const child = spawn(process.execPath, [join(repoRoot, 'bench', 'lib', 'speech-attacker.js'), args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    // A session of its own too: an attacker is another machine, not a part of the timed client.
    detached: true,
  });
  let out = '';
  child.stdin.on('error', () => {}); // it may have ended first; its exit code says so
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    out += text;
  });
  const exited = new Promise((done, fail) =>
    child.once('exit', (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`the attacking client exited with code ${code}`)))),
  );
  return {
    stop: () => {
      child.stdin.end();
      return exited;
    },
  };
}

async function runOnce(label, cli) {
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-speech-load-'));
  const server = await startServer(cli, dataDir);
  const { default: Database } = await import('better-sqlite3');
  try {
    const all = sources();
    for (let offset = 0; offset < all.length; offset += 100) {
      const response = await post(server, 'data-sources', { text_sources: all.slice(offset, offset + 100) });
      if (!response.ok) throw new Error(`adding sources: ${response.status} ${await response.text()}`);
    }
    const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true, fileMustExist: true });
    try {
      while (db.prepare('SELECT count(*) AS n FROM jobs').get().n > 0) await sleep(50);
    } finally {
      db.close();
    }

    await searchLoop(server, () => true, 30);
    const idle = stats(await searchLoop(server, () => true, idleSearches));

    const loadBefore = loadavg();
    let mostEspeak = 0;
    const sampler = setInterval(() => {
      mostEspeak = Math.max(mostEspeak, espeakProcesses(server.pid));
    }, 100);
    const cpuBefore = cpuSeconds(server.pid);
    const attacking = startAttacker(server);
    const endsAt = performance.now() + seconds * 1000;
    const busy = stats(await searchLoop(server, () => performance.now() >= endsAt));
    const cpuAfter = cpuSeconds(server.pid);
    const tally = await attacking.stop();
    clearInterval(sampler);
    // The clients have left: their synthesizers should end (checked for up to 10 s).
    const leftAt = performance.now();
    while (espeakProcesses(server.pid) > 0 && performance.now() - leftAt < 10_000) await sleep(50);
    return {
      label,
      idle,
      busy,
      streams: { ...tally, audioMb: tally.audioBytes / 1e6 },
      mostEspeak,
      espeakAfterLeaving: espeakProcesses(server.pid),
      cpu: { main: cpuAfter.main - cpuBefore.main, process: cpuAfter.process - cpuBefore.process },
      loadAverage: { before: loadBefore, after: loadavg() },
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function run() {
  if (spawnSync('espeak-ng', ['--version'], { stdio: 'ignore' }).status !== 0) return { skipped: 'the espeak-ng program is not installed' };
  const results = [];
  for (let index = 0; index < runs; index++) {
    if (before !== undefined) {
      console.log(`Speech under load, run ${index + 1} of ${runs}: the other build (${before})...`);
      results.push(await runOnce('before', before));
    }
    console.log(`Speech under load, run ${index + 1} of ${runs}: this build...`);
    results.push(await runOnce('this build', CLI));
  }
  return { seconds, streams, goalP99Ms: GOAL_P99_MS, characters: TEXT.length, runs: results };
}

function print(result) {
  console.log(
    `\nAnother client's searches while one key keeps ${result.streams} offline-voice streams of ${result.characters} characters in flight for ${result.seconds} s ` +
      `(goal: search p99 ≤ ${result.goalP99Ms} ms):`,
  );
  const ms = (s) => `${fixed(s.p50, 1)} / ${fixed(s.p99, 1)} / ${fixed(s.max, 0)}`;
  console.log(
    table(
      ['build', 'search p50/p99/max ms idle', 'busy', 'searches busy', 'failed', 'streams 200', 'finished', 'broken', '429', '503', 'audio MB', 'most espeak', 'espeak left', 'CPU s main/all', 'load 1 min'],
      result.runs.map((run) => [
        run.label,
        ms(run.idle),
        ms(run.busy),
        run.busy.samples,
        run.busy.failed,
        run.streams.accepted,
        run.streams.finished,
        run.streams.broken,
        run.streams.refused[429] ?? 0,
        run.streams.refused[503] ?? 0,
        fixed(run.streams.audioMb, 1),
        run.mostEspeak,
        run.espeakAfterLeaving,
        `${fixed(run.cpu.main, 1)} / ${fixed(run.cpu.process, 1)}`,
        `${fixed(run.loadAverage.before[0], 1)}–${fixed(run.loadAverage.after[0], 1)}`,
      ]),
    ),
  );
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'speech-load', run, print };
