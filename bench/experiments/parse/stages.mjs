// Time per extraction stage over the PostgreSQL manual, one thread, warm (second pass).
import console from 'node:console';
import process from 'node:process';
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseDocument } from '../../../dist/engine/ingest/extract/html-document.js';
import { extractHtml } from '../../../dist/engine/ingest/extract/html.js';
import { htmlToMarkdown } from '../../../dist/engine/ingest/extract/markdown.js';
const dir = '/usr/share/doc/postgresql-doc-15/html';
const pages = readdirSync(dir).filter((n) => n.endsWith('.html')).sort().map((n) => readFileSync(`${dir}/${n}`, 'utf8'));
const mode = process.argv[2] ?? 'all';
for (let pass = 0; pass < 3; pass++) {
  const t = { parse: 0, whole: 0, md: 0 };
  for (const html of pages) {
    let s = performance.now();
    const doc = parseDocument(html);
    t.parse += performance.now() - s;
    s = performance.now();
    if (mode !== 'parse') {
      const main = doc.querySelector('#docContent') ?? doc.body;
      htmlToMarkdown(main);
      t.md += performance.now() - s;
      s = performance.now();
      extractHtml(html, 'http://x/' );
      t.whole += performance.now() - s;
    }
  }
  console.log(pass, Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)])));
}
