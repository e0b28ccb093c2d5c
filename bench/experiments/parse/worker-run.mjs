// Feeds a folder of HTML pages (DIR, default the PostgreSQL manual; subfolders too) to one bundled extraction worker, page after page, several passes.
import console from 'node:console';
import process from 'node:process';
import { URL } from 'node:url';
import { readFileSync, readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
const dir = process.env.DIR ?? '/usr/share/doc/postgresql-doc-15/html';
const pages = readdirSync(dir, { recursive: true }).map(String).filter((n) => n.endsWith('.html')).sort().map((n) => ({ n, body: new Uint8Array(readFileSync(`${dir}/${n}`)) }));
const worker = new Worker(new URL('../../../dist/bin/extraction-worker.js', import.meta.url));
const passes = Number(process.argv[2] ?? 3);
let id = 0;
const pending = new Map();
worker.on('message', (m) => { if (m.type === 'ready') return start(); pending.get(m.id)?.(m); });
const run = (page) => new Promise((resolve) => { const i = ++id; pending.set(i, resolve); worker.postMessage({ id: i, kind: 'page', page: { url: `http://127.0.0.1/${page.n}`, mimeType: 'text/html', contentType: 'text/html; charset=utf-8', body: page.body } }); });
async function start() {
  for (let pass = 0; pass < passes; pass++) {
    const s = performance.now(); let chars = 0;
    for (const p of pages) { const m = await run(p); chars += m.result?.markdown?.length ?? 0; }
    console.log('pass', pass, Math.round(performance.now() - s), 'ms', chars, 'chars');
  }
  await worker.terminate();
}
