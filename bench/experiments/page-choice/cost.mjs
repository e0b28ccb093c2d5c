// Scratch: CPU per question of the page-focus counts (one FTS count per question word over the candidate pages) next to the lexical search.
// Usage (after npm run build with the experiment commit, and a kept bench guru): node cost.mjs sqlite /tmp/qa-hubs
import console from 'node:console';
import process from 'node:process';
import { URL } from 'node:url';
import { readFileSync } from 'node:fs';
const dist = (p) => import(new URL(`../../../dist/${p}`, import.meta.url).href);
const { openDatabase } = await dist('engine/store/database.js');
const { Retriever } = await dist('engine/search/retriever.js');
const { parseQuery } = await dist('engine/search/query.js');
const { withSynonyms } = await dist('engine/search/synonyms.js');
const [set, dataRoot] = process.argv.slice(2);
const qs = JSON.parse(readFileSync(new URL(`../../qa/${set}.json`, import.meta.url), 'utf8'));
const db = openDatabase(`${dataRoot}/${set}`);
const r = new Retriever(db);
const guruId = db.prepare('SELECT id FROM gurus').get().id;
const questions = [...qs.questions.map((q) => q.question), ...qs.offTopic];
for (let round = 0; round < 3; round++) {
  let search = 0, focus = 0;
  for (const text of questions) {
    const g = withSynonyms(parseQuery(text));
    let t = process.cpuUsage();
    const hits = r.search(guruId, g, { limit: 40 });
    search += process.cpuUsage(t).user;
    t = process.cpuUsage();
    const ids = [...new Set(hits.map((h) => h.sourceId))];
    for (const term of g.terms) r.matchingPerSource([term, ...[...g.aliases].filter(([, of]) => of === term).map(([a]) => a)], ids);
    r.chunksPerSource(ids);
    focus += process.cpuUsage(t).user;
  }
  console.log(`${set} round ${round}: per question CPU: lexical search ${(search / questions.length / 1000).toFixed(1)} ms, page-focus counts ${(focus / questions.length / 1000).toFixed(1)} ms`);
}
