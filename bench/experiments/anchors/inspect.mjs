// Prints what the anchor texts of a kept bench guru look like: counts, and the anchor texts of some pages.
// Usage: node bench/experiments/anchors/inspect.mjs /tmp/qa-anchors/sqlite [page ...] (NAV=0.05)
import console from 'node:console';
import process from 'node:process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { collectAnchors } from './anchors.mjs';

const [dir, ...pages] = process.argv.slice(2);
const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
const anchors = collectAnchors(db, { navShare: Number(process.env.NAV ?? 0.05) });
console.log(anchors.stats);
const sizes = [...anchors.byPage.values()].map((a) => a.length).sort((x, y) => y - x);
console.log('anchor texts per target page: max', sizes[0], 'median', sizes[Math.floor(sizes.length / 2)]);
for (const page of pages) {
  const list = (anchors.byPage.get(page) ?? []).sort((a, b) => b.from.size - a.from.size);
  console.log(`\n${page}: ${list.length} texts`);
  console.log(list.slice(0, 40).map((a) => `${a.text} (${a.from.size})`).join(' | '));
}
