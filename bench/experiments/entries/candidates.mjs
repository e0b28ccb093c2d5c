// Scratch: the candidates of one question as answerer.ts weighs them (score, page, section), to see
// where an entry's section ranks. Usage (after npm run build): node candidates.mjs <data dir of a set> "question"
import console from 'node:console';
import process from 'node:process';
import { URL } from 'node:url';
const dist = (p) => import(new URL(`../../../dist/${p}`, import.meta.url).href);
const { openDatabase } = await dist('engine/store/database.js');
const { Retriever } = await dist('engine/search/retriever.js');
const { parseQuery } = await dist('engine/search/query.js');
const { withSynonyms } = await dist('engine/search/synonyms.js');
const { fuseRanked } = await dist('engine/search/fusion.js');
const { keyTerms, weighEvidence } = await dist('engine/answer/evidence.js');

const [dataDir, question] = process.argv.slice(2);
const db = openDatabase(dataDir);
const retriever = new Retriever(db);
const guruId = db.prepare('SELECT id FROM gurus').get().id;
const chunkCount = db.prepare('SELECT count(*) AS n FROM chunks WHERE guru_id = ?').get(guruId).n;
const graded = withSynonyms(parseQuery(question));
const candidates = fuseRanked([retriever.search(guruId, graded, { limit: 40 })], (hit) => hit.chunkId).slice(0, 40);
const key = keyTerms(graded.terms, chunkCount, (term) => retriever.documentFrequency(guruId, term));
const marked = retriever.markedChunks(graded, candidates.map((hit) => hit.chunkId));
const evidence = weighEvidence(candidates, key, { marked, related: [], aliases: graded.aliases });
console.log('key terms', JSON.stringify([...key.weights].map(([t, w]) => `${t}:${w.toFixed(2)}`)));
for (const item of evidence.slice(0, Number(process.env.TOP ?? 12))) {
  console.log(item.score.toFixed(3), (item.hit.url ?? '').replace(/^https?:\/\/[^/]+\//, ''), '|', item.hit.headings, '|', item.hit.body.slice(0, 70).replace(/\n/g, ' '));
}
