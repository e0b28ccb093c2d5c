// Scratch: for each question of a set, the answer's candidates as answerer.ts weighs them, with
// page-level facts (chunks, sections, where the key words sit), as JSON lines for rerank.mjs.
// Usage (after npm run build and a kept bench guru): node dump-candidates.mjs sqlite /tmp/qa-hubs > /tmp/cands.jsonl
import console from 'node:console';
import process from 'node:process';
import { URL } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const dist = (p) => import(new URL(`../../../dist/${p}`, import.meta.url).href);
const { openDatabase } = await dist('engine/store/database.js');
const { Retriever } = await dist('engine/search/retriever.js');
const { parseQuery, quoteTerm } = await dist('engine/search/query.js');
const { withSynonyms } = await dist('engine/search/synonyms.js');
const { fuseRanked } = await dist('engine/search/fusion.js');
const { keyTerms, weighEvidence } = await dist('engine/answer/evidence.js');
const { markedTerms } = await dist('engine/answer/marks.js');

const [set, dataRoot] = process.argv.slice(2);
const questions = JSON.parse(readFileSync(new URL(`../../qa/${set}.json`, import.meta.url), 'utf8'));
const db = openDatabase(join(dataRoot, set));
const retriever = new Retriever(db);
const guruId = db.prepare('SELECT id FROM gurus').get().id;
const chunkCount = db.prepare('SELECT count(*) AS n FROM chunks WHERE guru_id = ?').get(guruId).n;
const pageChunks = db.prepare('SELECT id, headings FROM chunks WHERE source_id = ? ORDER BY position');
const termChunks = db.prepare('SELECT c.id AS id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? AND c.source_id = ?');
const bare = (text) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
// As answerer.ts: a chunk that only repeats its title or heading answers nothing.
const onlyRepeatsHeading = (hit) => { const body = bare(hit.body); return body === '' || body === bare(hit.title) || body === bare(hit.headings.split(' › ').at(-1) ?? ''); };
const page = (url) => (url ?? '').replace(/^https?:\/\/[^/]+\//, '');

for (const q of [...questions.questions, ...questions.offTopic.map((text) => ({ question: text, pages: [] }))]) {
  const asked = parseQuery(q.question);
  if (asked.onlyStopWords || asked.match === undefined) continue;
  const graded = withSynonyms(asked);
  const candidates = fuseRanked([retriever.search(guruId, graded, { limit: 40 })], (hit) => hit.chunkId).filter((hit) => !onlyRepeatsHeading(hit)).slice(0, 40);
  const key = keyTerms(graded.terms, chunkCount, (term) => retriever.documentFrequency(guruId, term));
  const marked = retriever.markedChunks(graded, candidates.map((hit) => hit.chunkId));
  const evidence = weighEvidence(candidates, key, { marked, related: [], aliases: graded.aliases });
  const pages = new Map();
  const termsOf = (term) => [term, ...[...graded.aliases].filter(([, t]) => t === term).map(([a]) => a)];
  for (const item of evidence) {
    const sourceId = item.hit.sourceId;
    if (!pages.has(sourceId)) {
      const chunks = pageChunks.all(sourceId);
      const sectionOf = new Map(chunks.map((c) => [c.id, c.headings]));
      const perTerm = {};
      for (const term of key.terms) {
        const ids = new Set();
        for (const word of termsOf(term)) for (const row of termChunks.all(process.env.NO_TITLE ? `{headings body}: ${quoteTerm(word)}` : quoteTerm(word), sourceId)) ids.add(row.id);
        perTerm[term] = [...ids].map((id) => sectionOf.get(id));
      }
      pages.set(sourceId, { chunks: chunks.length, sections: new Set(chunks.map((c) => c.headings)).size, firstHeading: chunks[0]?.headings.split(' › ')[0] ?? '', perTerm });
    }
    const m = marked.get(item.hit.chunkId);
    item.inHeadings = [...markedTerms(m?.headings ?? '', key.terms, graded.aliases)];
  }
  console.log(
    JSON.stringify({
      question: q.question,
      right: q.pages,
      weights: Object.fromEntries(key.weights),
      terms: key.terms,
      pages: Object.fromEntries([...pages].map(([id, p]) => [id, p])),
      candidates: evidence.map((e) => ({
        sourceId: e.hit.sourceId, page: page(e.hit.url), title: e.hit.title, headings: e.hit.headings, position: e.hit.position,
        score: e.score, coverage: e.coverage, titleCoverage: e.titleCoverage, headingCoverage: e.headingCoverage,
        proximity: e.proximity, lexical: e.lexical, support: e.support, missing: e.missing, inHeadings: e.inHeadings,
      })),
    }),
  );
}
