// CPU seconds of extracting every page of a folder in one thread (no chunking, no database), from the
// dist/ of the checkout this script sits in; run copies at two commits in turn to compare.
// Usage: node extract-cpu.mjs <folder>
import console from 'node:console';
import process from 'node:process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { URL, pathToFileURL } from 'node:url';
const { extractHtml } = await import(new URL('../../../dist/engine/ingest/extract/html.js', import.meta.url).href);

const dir = process.argv[2];
const pages = readdirSync(dir, { recursive: true }).filter((name) => name.endsWith('.html')).map((name) => join(dir, name));
const texts = pages.map((path) => readFileSync(path, 'utf8'));
const start = process.cpuUsage();
for (let i = 0; i < texts.length; i++) extractHtml(texts[i], pathToFileURL(pages[i]).href);
const used = process.cpuUsage(start);
console.log(JSON.stringify({ pages: pages.length, cpuSeconds: +((used.user + used.system) / 1e6).toFixed(2) }));
