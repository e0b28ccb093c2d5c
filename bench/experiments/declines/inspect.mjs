// Replays the answerer's steps up to its verdict over kept bench gurus and prints, per question, the
// verdict and each candidate page's evidence (what judge in src/engine/answer/trust.ts reads).
//   node bench/experiments/declines/inspect.mjs DATA_DIR SETS [declined|all] > rows.json
import { join } from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';
import { readSet } from '../../qa/benchmark.js';
import { scoreAnswer } from '../../qa/score.js';

const dist = (p) => import(new URL(`../../../dist/${p}`, import.meta.url).href);
const { openDatabase } = await dist('engine/store/database.js');
const { Retriever } = await dist('engine/search/retriever.js');
const { Answerer } = await dist('engine/answer/answerer.js');
const { parseQuery } = await dist('engine/search/query.js');
const { fuseRanked } = await dist('engine/search/fusion.js');
const { saysNothing } = await dist('engine/search/excerpts.js');
const { withSynonyms } = await dist('engine/search/synonyms.js');
const { keyTerms, weighEvidence } = await dist('engine/answer/evidence.js');
const { splitFraming } = await dist('engine/answer/framing.js');

const [dataRoot, sets] = process.argv.slice(2);
const rows = [];
for (const name of sets.split(',')) {
  const set = readSet(name);
  const db = openDatabase(join(dataRoot, name));
  const guru = db.prepare('SELECT id, name FROM gurus').get();
  const chunks = db.prepare('SELECT count(*) AS n FROM chunks WHERE guru_id = ?').get(guru.id).n;
  const pagesCount = db.prepare('SELECT count(DISTINCT source_id) AS n FROM chunks WHERE guru_id = ?').get(guru.id).n;
  const retriever = new Retriever(db);
  const answerer = new Answerer(retriever, () => chunks);
  const asked = [...set.questions.map((q) => ['on', q]), ...set.offTopic.map((text) => ['off', { question: text, pages: [], terms: [] }])];
  for (const [kind, question] of asked) {
    const draft = answerer.draft({ guruId: guru.id, guruName: guru.name, question: question.question });
    const answer = { content: draft.content, references: draft.references, trust_score: draft.trustScore, can_receive_feedback: draft.answered };
    const scored = scoreAnswer(question, answer, kind === 'on' ? 'on-topic' : 'off-topic', 0);
    // the steps of draft up to judge
    const framed = splitFraming(question.question);
    const own = parseQuery(framed.asks);
    const withContext = framed.framing === '' ? undefined : parseQuery(`${framed.framing} ${question.question}`);
    const graded = withSynonyms(own);
    const queries = [graded, withContext].filter(Boolean);
    const lists = queries.map((q) => retriever.search(guru.id, q, { limit: 40 }));
    const candidates = fuseRanked(lists, (hit) => hit.chunkId).filter((hit) => !saysNothing(hit)).slice(0, 40);
    const df = (t) => retriever.documentFrequency(guru.id, t);
    const key = keyTerms(graded.terms, chunks, df);
    const evidence = weighEvidence(candidates, key, {
      anchors: retriever.anchorTexts(guru.id, graded, [...new Set(candidates.map((h) => h.sourceId))]),
      marked: retriever.markedChunks(graded, candidates.map((h) => h.chunkId)),
      related: [],
      aliases: graded.aliases,
    });
    const pages = new Map();
    for (const item of evidence) {
      let p = pages.get(item.hit.sourceId);
      if (!p) pages.set(item.hit.sourceId, (p = { url: item.hit.url.replace(/^https?:\/\/[^/]+\//, ''), held: new Set(), n: 0, anchor: 0, best: item.score, chunks: [] }));
      p.n += 1;
      const missing = new Set(item.missing);
      const held = key.terms.filter((t) => !missing.has(t));
      held.forEach((t) => p.held.add(t));
      p.anchor = Math.max(p.anchor, item.titleCoverage, item.headingCoverage, item.anchorCoverage, item.proximity);
      p.chunks.push({ held, cov: +item.coverage.toFixed(2), prox: +item.proximity.toFixed(2), head: +Math.max(item.titleCoverage, item.headingCoverage).toFixed(2), anc: +item.anchorCoverage.toFixed(2) });
    }
    const w = (ts) => [...ts].reduce((s, t) => s + (key.weights.get(t) ?? 0), 0) / key.total;
    rows.push({
      set: name, kind, q: question.question, asks: framed.asks, declined: scored.declined, correct: scored.correct, trust: draft.trustScore,
      chunks, pagesCount,
      terms: key.terms.map((t) => ({ t, w: +(key.weights.get(t) ?? 0).toFixed(2), df: df(t), unseen: key.unseen.has(t) })),
      total: +key.total.toFixed(2), rarity: +key.rarity.toFixed(3), unseenShare: +(key.unseenSays * [...key.unseen].reduce((s, t) => s + (key.weights.get(t) ?? 0), 0) / key.total).toFixed(2),
      expected: question.pages,
      pages: [...pages.values()].map((p) => ({ url: p.url, n: p.n, held: [...p.held], cov: +w(p.held).toFixed(2), anchor: +p.anchor.toFixed(2), best: +p.best.toFixed(2), chunks: p.chunks })),
    });
  }
  db.close();
}
process.stdout.write(`${JSON.stringify(rows)}\n`);
