// CPU cost of reading the anchor texts of a kept bench guru and indexing them in memory, and the
// size of what is kept. Usage: node bench/experiments/anchors/cost.mjs DIR/<set> [...]
import console from 'node:console';
import process from 'node:process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { anchorIndex, collectAnchors } from './anchors.mjs';

for (const dir of process.argv.slice(2)) {
  const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
  const chunks = db.prepare('SELECT count(*) AS n FROM chunks').get().n;
  const t0 = process.cpuUsage();
  const anchors = collectAnchors(db);
  const t1 = process.cpuUsage(t0);
  anchorIndex(anchors);
  const t2 = process.cpuUsage(t0);
  const texts = [...anchors.byPage.values()].flat();
  const chars = texts.reduce((s, a) => s + a.text.length, 0);
  const ms = (u) => ((u.user + u.system) / 1000).toFixed(0);
  console.log(`${dir}: ${anchors.stats.pages} pages, ${chunks} chunks, ${anchors.stats.links} kept links, ${texts.length} distinct (text, page) pairs, ${chars} characters of anchor text; read ${ms(t1)} ms CPU, read + index ${ms(t2)} ms CPU`);
}
