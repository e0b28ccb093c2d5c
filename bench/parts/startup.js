// Part `startup`: spawn -> initialize response of a stdio server, and on to its tools/list answer,
// guru-mcp against minimal SDK servers (1.x and v2).
import { spawn } from 'node:child_process';
import console from 'node:console';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { fixed, mb, median, positiveInt, repoRoot, table } from '../lib/common.js';

/**
 * @typedef {{ server: string, firstMs?: number, medianMs?: number, minMs?: number, maxMs?: number, toolsMs?: number, rssMb?: number, error?: string }} StartupResult
 */

const starts = positiveInt(process.env.GURU_BENCH_STARTS, 10);

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

/** Spawns a stdio server, times spawn -> initialize response (reading its RSS then) and -> tools/list response, and stops it. */
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
    let initialized;
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
            initialized = { ms: performance.now() - started, rssBytes: rssOf(child.pid) };
            child.stdin.write(LIST_TOOLS);
          } else if (message.id === 2) {
            clearTimeout(timeout);
            done(performance.now() - started);
          }
        }
      });
      child.stdin.write(INITIALIZE);
    });
    return { ...initialized, toolsMs: listed };
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
    toolsMs: median(runs.map((r) => r.toolsMs)),
    rssMb: mb(median(runs.map((r) => r.rssBytes))),
  };
}

/** @returns {Promise<StartupResult[]>} */
async function run() {
  const cli = join(repoRoot, 'dist', 'bin', 'guru-mcp.js');
  const results = [];
  results.push(await measureStartup('sdk 1.x minimal server', [join(repoRoot, 'bench', 'minimal-server.js')]));
  results.push(await measureStartup('sdk v2 minimal server', ['--input-type=module', '-e', MINIMAL_V2_SERVER]));
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
function print(startup) {
  console.log(`\nStdio start-up: spawn -> initialize response (median of ${starts}; first = fresh start); tools/list = spawn -> its answer, sent after initialize`);
  console.log(
    table(
      ['server', 'first ms', 'median ms', 'min ms', 'max ms', 'tools/list ms', 'RSS MB'],
      startup.map((s) => [s.server, fixed(s.firstMs, 1), fixed(s.medianMs, 1), fixed(s.minMs, 1), fixed(s.maxMs, 1), fixed(s.toolsMs, 1), fixed(s.rssMb, 1)]),
    ),
  );
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'startup', run, print };
