// Part `asks`: the memory of asks with attachments at the default limits' maximum (5 images of
// 5 MB, 5 log files of 1 MB, 3 PDFs of 10 MB: a 78 MB body), sent to a real `guru-mcp serve`
// process: one ask alone, then GURU_BENCH_ASKS_CONCURRENT at once (each on a fresh server). Reports
// the server's resident set before (after a small warm-up ask) and its peak (VmHWM, worker threads
// included), with each ask's status and time.
import console from 'node:console';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { request } from 'undici';
import { fixed, positiveInt, repoRoot, table } from '../lib/common.js';
import { startServe } from '../lib/serve-process.js';

const CLI = join(repoRoot, 'dist', 'bin', 'guru-mcp.js');
const concurrent = positiveInt(process.env.GURU_BENCH_ASKS_CONCURRENT, 4);

const MB = 1_000_000;

/** A PDF of one page of text, padded with an attached file to `bytes` bytes at most (and about 1 KB under). */
async function pdfOf(bytes) {
  const build = async (padding) => {
    const document = await PDFDocument.create();
    const font = await document.embedFont(StandardFonts.Helvetica);
    const page = document.addPage();
    page.drawText('The connection pool holds at most twenty connections; raise max_connections to allow more.', { x: 40, y: 700, size: 11, font });
    await document.attach(randomBytes(padding), 'padding.bin', { mimeType: 'application/octet-stream' });
    return Buffer.from(await document.save({ useObjectStreams: false }));
  };
  // The attachment is compressed, which random bytes make a little larger: aim, then correct once.
  let padding = bytes - 4096;
  let pdf = await build(padding);
  padding -= pdf.length - bytes + 1024;
  pdf = await build(padding);
  if (pdf.length > bytes) throw new Error(`the padded PDF is ${pdf.length} bytes, over ${bytes}`);
  return pdf;
}

/** A log of `bytes` bytes of lines like a server's. */
function logOf(bytes, index) {
  const line = `2024-01-01T00:00:00Z worker-${index} ERROR pool exhausted: max_connections reached (20 of 20 in use)\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

/** The largest ask the default attachment limits take, as its JSON body. */
async function largestAsk() {
  const pngHeader = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const images = Array.from({ length: 5 }, (_, index) => {
    const bytes = Buffer.concat([pngHeader, randomBytes(5 * MB - pngHeader.length)]);
    return { name: `shot-${index}.png`, type: 'image/png', data: `data:image/png;base64,${bytes.toString('base64')}` };
  });
  const pdf = await pdfOf(10 * MB);
  const pdfs = Array.from({ length: 3 }, (_, index) => ({ name: `manual-${index}.pdf`, type: 'application/pdf', data: `data:application/pdf;base64,${pdf.toString('base64')}` }));
  const logs = Array.from({ length: 5 }, (_, index) => ({ name: `app-${index}.log`, data: logOf(1 * MB, index) }));
  return Buffer.from(JSON.stringify({ question: 'Why is the connection pool exhausted?', images, log_files: logs, pdf_files: pdfs }));
}

async function startServer(dataDir) {
  const env = { ...process.env, GURU_DATA_DIR: dataDir, GURU_RATE_LIMIT_PER_MINUTE: '0', GURU_LOG_LEVEL: 'warn' };
  const created = spawnSync(process.execPath, [CLI, 'guru', 'create', 'docs', '--json'], { env, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`guru create failed: ${created.stderr}`);
  return { ...(await startServe(CLI, env)), key: JSON.parse(created.stdout).api_key };
}

/** A field of /proc/PID/status in MB (VmRSS now, VmHWM the peak so far). */
function statusMb(pid, field) {
  const kb = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return kb ? Number(kb[1]) / 1024 : Number.NaN;
}

async function ask(server, body) {
  const started = performance.now();
  try {
    const response = await request(`${server.origin}/api/v1/docs/answer/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.key },
      body,
      headersTimeout: 600_000,
      bodyTimeout: 600_000,
    });
    const text = await response.body.text();
    return { status: response.statusCode, seconds: (performance.now() - started) / 1000, note: response.statusCode === 200 ? undefined : text.slice(0, 200) };
  } catch (error) {
    return { status: 0, seconds: (performance.now() - started) / 1000, note: error.code ?? error.message };
  }
}

/** A fresh server; a small ask to load what answering needs; then `count` of the largest asks at once. */
async function scenario(count, body) {
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-asks-'));
  const server = await startServer(dataDir);
  try {
    const warm = await ask(server, JSON.stringify({ question: 'warm up', log_files: [{ name: 'a.log', data: 'ready' }] }));
    if (warm.status !== 200) throw new Error(`the warm-up ask failed: ${warm.status} ${warm.note}`);
    const before = statusMb(server.pid, 'VmRSS');
    const asks = await Promise.all(Array.from({ length: count }, () => ask(server, body)));
    return { count, rssBeforeMb: Math.round(before), peakRssMb: Math.round(statusMb(server.pid, 'VmHWM')), asks };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function run() {
  const body = await largestAsk();
  const one = await scenario(1, body);
  const many = await scenario(concurrent, body);
  return { bodyMb: Number((body.length / MB).toFixed(1)), scenarios: [one, many] };
}

function print(result) {
  console.log(`\nAsks at the default attachment limits' maximum (${result.bodyMb} MB bodies) to a real server:`);
  console.log(
    table(
      ['asks at once', 'RSS before (MB)', 'peak RSS (MB)', 'statuses', 'seconds (each)'],
      result.scenarios.map((each) => [
        each.count,
        each.rssBeforeMb,
        each.peakRssMb,
        each.asks.map((one) => one.status).join(' '),
        each.asks.map((one) => fixed(one.seconds, 1)).join(' '),
      ]),
    ),
  );
  for (const each of result.scenarios) for (const one of each.asks) if (one.note) console.log(`  ${one.status}: ${one.note}`);
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'asks', run, print };
