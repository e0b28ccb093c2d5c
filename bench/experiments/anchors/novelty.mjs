// How new is anchor text's vocabulary to the page it points at? For each set, the share of anchor
// words (each (text, page) pair once, words of 3+ letters, lower case, no stemming) that the target
// page's title and headings already hold, that only its body holds, and that it does not hold.
// Usage: node bench/experiments/anchors/novelty.mjs DIR/<set> [...]
import console from 'node:console';
import process from 'node:process';
import { join } from 'node:path';
import { URL } from 'node:url';
import Database from 'better-sqlite3';
import { collectAnchors } from './anchors.mjs';

const words = (text) => (text.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? []);
for (const dir of process.argv.slice(2)) {
  const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
  const { byPage } = collectAnchors(db);
  const pageOf = (url) => decodeURIComponent(new URL(url).pathname).replace(/^\/+/, '');
  const label = new Map();
  const body = new Map();
  for (const c of db.prepare('SELECT s.url, c.title, c.headings, c.body FROM chunks c JOIN data_sources s ON s.id = c.source_id WHERE s.url IS NOT NULL').iterate()) {
    const page = pageOf(c.url);
    if (!label.has(page)) label.set(page, new Set());
    if (!body.has(page)) body.set(page, new Set());
    for (const w of words(`${c.title} ${c.headings}`)) label.get(page).add(w);
    for (const w of words(c.body)) body.get(page).add(w);
  }
  let inLabel = 0;
  let inBody = 0;
  let absent = 0;
  for (const [page, anchors] of byPage) {
    for (const a of anchors) {
      for (const w of new Set(words(a.text))) {
        if (label.get(page)?.has(w)) inLabel += 1;
        else if (body.get(page)?.has(w)) inBody += 1;
        else absent += 1;
      }
    }
  }
  const total = inLabel + inBody + absent;
  const pct = (n) => `${((100 * n) / total).toFixed(0)} %`;
  console.log(`${dir}: ${total} anchor words: in the page's title or headings ${pct(inLabel)}, only in its body ${pct(inBody)}, not in the page ${pct(absent)}`);
}
