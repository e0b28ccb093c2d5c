// Compares the retriever of two builds (e.g. before and after pruning) on every question of the QA
// sets and the under-load part, as asked and widened with synonyms: the same hits, in the same order?
// Usage: node pruning-check.mjs OLD_DIST NEW_DIST guru.sqlite... ; prints differences and timings.
import console from 'node:console';
import process from 'node:process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { URL } from 'node:url';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';

const [oldDist, newDist, ...files] = process.argv.slice(2);
const load = async (dist) => ({
  Retriever: (await import(join(dist, 'engine/search/retriever.js'))).Retriever,
  parseQuery: (await import(join(dist, 'engine/search/query.js'))).parseQuery,
  withSynonyms: (await import(join(dist, 'engine/search/synonyms.js'))).withSynonyms,
});
const builds = [await load(oldDist), await load(newDist)];
const questions = ['sqlite', 'postgresql', 'python'].flatMap((set) => {
  const data = JSON.parse(readFileSync(new URL(`../../qa/${set}.json`, import.meta.url), 'utf8'));
  return [...(data.questions ?? []).map((q) => q.question), ...(data.offTopic ?? []).map((q) => q.question ?? q)];
});
let compared = 0;
let differing = 0;
for (const file of files) {
  const db = new Database(file, { readonly: true });
  db.function('casefold', { deterministic: true }, (text) => (typeof text === 'string' ? text.toLowerCase() : text));
  const guruId = db.prepare('SELECT id FROM gurus LIMIT 1').pluck().get();
  const time = [0, 0];
  for (const question of questions) {
    const outputs = builds.map(({ Retriever, parseQuery, withSynonyms }, build) => {
      const retriever = new Retriever(db);
      const started = performance.now();
      const found = [parseQuery(question), withSynonyms(parseQuery(question))].flatMap((query) => [
        retriever.search(guruId, query, { limit: 40 }).map((hit) => `${hit.chunkId}:${hit.score.toFixed(9)}`),
        retriever.searchSources(guruId, query, { limit: 20 }).map((hit) => `${hit.sourceId}:${hit.score.toFixed(9)}`),
      ]);
      time[build] += performance.now() - started;
      return JSON.stringify(found);
    });
    compared++;
    if (outputs[0] !== outputs[1]) {
      differing++;
      console.log('DIFFERS', file, question);
    }
  }
  console.log(file, 'ms old', time[0].toFixed(0), 'new', time[1].toFixed(0));
}
console.log(`${compared} questions × guru compared, ${differing} differ`);
