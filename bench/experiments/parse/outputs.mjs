// Writes what this checkout makes of every HTML page under a folder: its title, its Markdown (through
// the bundled extraction worker) and its chunks, one JSON line a page, so that two builds can be compared.
//   node bench/experiments/parse/outputs.mjs /usr/share/doc/postgresql-doc-15/html > /tmp/pg.jsonl
//   cmp /tmp/pg-before.jsonl /tmp/pg.jsonl
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { chunkMarkdown } from '../../../dist/engine/ingest/chunker.js';

const root = process.argv[2] ?? '/usr/share/doc/postgresql-doc-15/html';
/** HTML files below `dir`, symbolic links followed (Debian's Python docs link their folders), in a fixed order. */
const htmlFiles = (dir) =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return htmlFiles(path);
      return name.endsWith('.html') ? [path] : [];
    });

const worker = new Worker(new URL('../../../dist/bin/extraction-worker.js', import.meta.url));
const pending = new Map();
let id = 0;
const extract = (path) =>
  new Promise((resolve) => {
    const task = ++id;
    pending.set(task, resolve);
    const url = `http://127.0.0.1/${relative(root, path)}`;
    const page = { url, mimeType: 'text/html', contentType: 'text/html; charset=utf-8', body: new Uint8Array(readFileSync(path)) };
    worker.postMessage({ id: task, kind: 'page', page });
  });
worker.on('message', async (message) => {
  if (message.type !== 'ready') return pending.get(message.id)?.(message);
  for (const path of htmlFiles(root)) {
    const { result, error } = await extract(path);
    const chunks = result ? chunkMarkdown(result.markdown, { title: result.title }) : [];
    process.stdout.write(`${JSON.stringify({ page: relative(root, path), title: result?.title, markdown: result?.markdown, error, chunks })}\n`);
  }
  await worker.terminate();
});
