// Part `startup`: spawn -> initialize response of a stdio server, and on to its tools/list answer,
// guru-mcp against minimal SDK servers (1.x and v2). The servers start in turns (one start of each
// per round, the order rotating), so that other work on the machine falls on all of them alike;
// besides wall-clock time each start reports the CPU time the server process had used by then
// (user + system, all its threads), which other work on the machine changes much less.
import { spawn } from 'node:child_process';
import console from 'node:console';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { fixed, mb, median, positiveInt, repoRoot, table } from '../lib/common.js';

/**
 * @typedef {{ ms: number, cpuMs: number, toolsMs: number, toolsCpuMs: number, rssBytes: number }} StartSample
 * @typedef {{ server: string, firstMs?: number, medianMs?: number, minMs?: number, maxMs?: number, cpuMs?: number, toolsMs?: number, toolsCpuMs?: number, rssMb?: number, starts?: number, error?: string }} StartupResult
 */

const starts = positiveInt(process.env.GURU_BENCH_STARTS, 20);

/**
 * A prefix where the packed package is installed (`npm pack`, then `npm install ./guru-mcp-*.tgz`
 * there): its command starts too, as `npx -y guru-mcp` runs it. Unset: not measured (installing
 * takes minutes, so the benchmark does not do it itself).
 */
const installedPrefix = process.env.GURU_BENCH_INSTALLED;

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'guru-bench', version: '0.0.0' } },
})}\n`;

/** After the initialize response, as a host goes on: the handshake's end, then the tool listing. */
const LIST_TOOLS = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`;

/** The smallest stdio server of the SDK v2 packages guru-mcp is built on (its serving entry, both eras), run with `-e`. */
const MINIMAL_V2_SERVER = `
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
serveStdio(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  server.registerTool('ping', { description: 'Replies with pong.' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
  return server;
});
`;

/** Spawns a stdio server, times spawn -> initialize response (reading its CPU time and RSS then) and -> tools/list response, and stops it. */
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
    /** @type {{ ms: number, cpuMs: number, rssBytes: number } | undefined} */
    let initialized;
    /** @type {{ toolsMs: number, toolsCpuMs: number }} */
    const listed = await new Promise((done, fail) => {
      let buffered = '';
      const timeout = setTimeout(() => fail(new Error(`no initialize and tools/list responses within 30 s; stderr: ${stderr}`)), 30_000);
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
          if (message.error) {
            clearTimeout(timeout);
            fail(new Error(`request ${message.id} failed: ${JSON.stringify(message.error)}`));
          } else if (message.id === 1) {
            initialized = { ms: performance.now() - started, cpuMs: cpuMsOf(child.pid), rssBytes: rssOf(child.pid) };
            child.stdin.write(LIST_TOOLS);
          } else if (message.id === 2) {
            clearTimeout(timeout);
            done({ toolsMs: performance.now() - started, toolsCpuMs: cpuMsOf(child.pid) });
          }
        }
      });
      child.stdin.write(INITIALIZE);
    });
    return { ...initialized, ...listed };
  } finally {
    await stop(child);
  }
}

/**
 * CPU time (user + system) a running process has used, in ms, summed over its threads from the
 * scheduler's nanosecond counters (/proc/PID/task/TID/schedstat; Linux only, NaN elsewhere).
 */
function cpuMsOf(pid) {
  try {
    let nanoseconds = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    }
    return nanoseconds / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** Resident set size of a running process, from /proc (Linux only, NaN elsewhere). */
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

/** @returns {StartupResult} */
function summary(server, first, samples) {
  const times = samples.map((s) => s.ms);
  return {
    server,
    starts: samples.length,
    firstMs: first.ms,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    toolsMs: median(samples.map((s) => s.toolsMs)),
    toolsCpuMs: median(samples.map((s) => s.toolsCpuMs)),
    rssMb: mb(median(samples.map((s) => s.rssBytes))),
  };
}

/**
 * Starts each server once outside the rounds (guru-mcp's first start creates its database; reported as
 * firstMs), then `starts` times each in rounds, one start of every server per round.
 * @param {Array<{ server: string, args: string[] }>} servers
 * @returns {Promise<StartupResult[]>}
 */
async function measureInTurns(servers) {
  const firsts = [];
  for (const { args } of servers) firsts.push(await startOnce(args));
  /** @type {StartSample[][]} */
  const samples = servers.map(() => []);
  for (let round = 0; round < starts; round += 1) {
    for (let turn = 0; turn < servers.length; turn += 1) {
      const index = (round + turn) % servers.length;
      samples[index].push(await startOnce(servers[index].args));
    }
  }
  return servers.map(({ server }, index) => summary(server, firsts[index], samples[index]));
}

/** @returns {Promise<StartupResult[]>} */
async function run() {
  const cli = join(repoRoot, 'dist', 'bin', 'guru-mcp.js');
  const servers = [
    { server: 'sdk 1.x minimal server', args: [join(repoRoot, 'bench', 'minimal-server.js')] },
    { server: 'sdk v2 minimal server', args: ['--input-type=module', '-e', MINIMAL_V2_SERVER] },
  ];
  if (!existsSync(cli)) {
    console.log(`\nNote: ${cli} is missing (CLI not built yet); skipping the guru-mcp stdio start-up benchmark.`);
    return measureInTurns(servers);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-stdio-'));
  const guru = [{ server: 'guru-mcp stdio', args: [cli, 'stdio', '--data-dir', dataDir] }];
  if (installedPrefix !== undefined) {
    const installed = join(installedPrefix, 'node_modules', 'guru-mcp', 'dist', 'bin', 'guru-mcp.js');
    if (existsSync(installed)) guru.push({ server: 'guru-mcp stdio (installed package)', args: [installed, 'stdio', '--data-dir', dataDir] });
    else console.log(`\nNote: GURU_BENCH_INSTALLED has no ${installed}; skipping the installed package.`);
  }
  try {
    return await measureInTurns([...servers, ...guru]);
  } catch (error) {
    console.log(`\nNote: the stdio start-ups could not be measured: ${error.message.trim()}`);
    return [{ server: 'guru-mcp stdio', error: error.message.trim() }];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function print(startup) {
  console.log(
    `\nStdio start-up, the servers started in turns (${starts} rounds): spawn -> initialize response, wall-clock median (min, max) and the server's CPU time by then (user + system, median); tools/list = the same to its answer, sent after initialize; first = the first start, outside the rounds (guru-mcp creates its database then)`,
  );
  console.log(
    table(
      ['server', 'first ms', 'initialize ms', 'min ms', 'max ms', 'init CPU ms', 'tools/list ms', 'list CPU ms', 'RSS MB'],
      startup.map((s) => [
        s.server,
        fixed(s.firstMs, 1),
        fixed(s.medianMs, 1),
        fixed(s.minMs, 1),
        fixed(s.maxMs, 1),
        fixed(s.cpuMs, 1),
        fixed(s.toolsMs, 1),
        fixed(s.toolsCpuMs, 1),
        fixed(s.rssMb, 1),
      ]),
    ),
  );
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'startup', run, print };
