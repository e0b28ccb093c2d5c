// Chunks and Markdown size of a folder of HTML pages as extraction and chunking make them, and how
// many definition lists were written as entries, from the dist/ of the checkout this script sits in
// (run it from a copy at another commit to compare). Usage: node counts.mjs <folder> [<folder>…]
import console from 'node:console';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { URL, pathToFileURL } from 'node:url';
const dist = (p) => import(new URL(`../../../dist/${p}`, import.meta.url).href);
const { extractHtml } = await dist('engine/ingest/extract/html.js');
const { chunkMarkdown } = await dist('engine/ingest/chunker.js');

function* htmlFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* htmlFiles(path);
    else if (name.endsWith('.html')) yield path;
  }
}

for (const dir of process.argv.slice(2)) {
  let pages = 0;
  let chunks = 0;
  let bytes = 0;
  let sections = 0;
  for (const path of htmlFiles(dir)) {
    const { title, markdown } = extractHtml(readFileSync(path, 'utf8'), pathToFileURL(path).href);
    const pieces = chunkMarkdown(markdown, { title });
    pages += 1;
    chunks += pieces.length;
    bytes += Buffer.byteLength(markdown);
    sections += new Set(pieces.map((chunk) => chunk.headings.join('\u0000'))).size;
  }
  console.log(JSON.stringify({ dir, pages, chunks, sections, markdownMB: +(bytes / 1e6).toFixed(2) }));
}
