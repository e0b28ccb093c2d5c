// The answer pipeline of answerer.ts (retrieve → weigh → judge → focus → compose), replicated over
// the built modules so that the candidates' order can be replaced by another scorer, and each
// candidate's ranking features read (for fit.mjs). Keep it in step with answerer.ts: fit.mjs first prints the
// hand weights' figures, which must equal the bench's (`GURU_BENCH_PARTS=qa`) on the same kept guru.
// Since anchor text joined answerer.ts (bench/experiments/anchors/NOTES.md), this replica weighs
// without it: its figures are those of the engine before anchors; anchors/run.mjs adds them.
import { join } from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';

const dist = (p) => import(new URL(`../../../dist/${p}`, import.meta.url).href);
const { openDatabase } = await dist('engine/store/database.js');
const { Retriever } = await dist('engine/search/retriever.js');
const { parseQuery } = await dist('engine/search/query.js');
const { withSynonyms } = await dist('engine/search/synonyms.js');
const { fuseRanked } = await dist('engine/search/fusion.js');
const { HEADING_SEPARATOR } = await dist('engine/store/chunks.js');
const { keyTerms, weighEvidence } = await dist('engine/answer/evidence.js');
const { composeExtractive, markedQuote, noAnswer, WORD_BUDGET } = await dist('engine/answer/extractive.js');
const { markedTerms, markedWords } = await dist('engine/answer/marks.js');
const { asksHow, chooseFocus, quoteWorth, samePageOptions } = await dist('engine/answer/focus.js');
const { judge, STRONG_TRUST } = await dist('engine/answer/trust.js');

const CANDIDATES = 40;
const SECOND_SOURCE_FLOOR = 0.5;
const bare = (text) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const onlyRepeatsHeading = (hit) => {
  const body = bare(hit.body);
  return body === '' || body === bare(hit.title) || body === bare(hit.headings.split(HEADING_SEPARATOR).at(-1) ?? '');
};
const withAliasWeights = (weights, aliases) => {
  const all = new Map(weights);
  for (const [alias, term] of aliases) all.set(alias, weights.get(term) ?? 0);
  return all;
};

/** Opens a kept bench guru (<dataRoot>/<set>). */
export function openGuru(dataRoot, set) {
  const db = openDatabase(join(dataRoot, set));
  const retriever = new Retriever(db);
  const guru = db.prepare('SELECT id, name FROM gurus').get();
  const chunkCount = db.prepare('SELECT count(*) AS n FROM chunks WHERE guru_id = ?').get(guru.id).n;
  const pageChunks = db.prepare('SELECT count(*) AS n FROM chunks WHERE source_id = ?');
  const pageSize = new Map();
  const chunksOfPage = (sourceId) => {
    if (!pageSize.has(sourceId)) pageSize.set(sourceId, pageChunks.get(sourceId).n);
    return pageSize.get(sourceId);
  };
  return { db, retriever, guru, chunkCount, chunksOfPage };
}

/**
 * The question's candidates weighed as answerer.ts does, each with its ranking features.
 * `extraLists(graded)` gives more ranked candidate lists fused with the word search (an experiment's
 * other retrieval, as answerer.ts fuses the passages found by meaning).
 */
export function weigh(g, question, extraLists = () => []) {
  const asked = parseQuery(question);
  if (asked.onlyStopWords || asked.match === undefined) return undefined;
  const graded = withSynonyms(asked);
  const candidates = fuseRanked([g.retriever.search(g.guru.id, graded, { limit: CANDIDATES }), ...extraLists(graded)], (hit) => hit.chunkId)
    .filter((hit) => !onlyRepeatsHeading(hit))
    .slice(0, CANDIDATES);
  if (candidates.length === 0) return undefined;
  const key = keyTerms(graded.terms, g.chunkCount, (term) => g.retriever.documentFrequency(g.guru.id, term));
  const marked = g.retriever.markedChunks(graded, candidates.map((hit) => hit.chunkId));
  const evidence = weighEvidence(candidates, key, { marked, related: [], aliases: graded.aliases });
  return { graded, key, marked, evidence: withFeatures(evidence, candidates, key, marked, graded.aliases, g.chunksOfPage) };
}

/** Weighted share of the key words that `holds` holds. */
const share = (key, holds) => {
  if (key.total === 0) return 0;
  let held = 0;
  for (const [term, weight] of key.weights) if (holds(term)) held += weight;
  return held / key.total;
};

/** Candidate features: those of weighEvidence and cheap page-level ones. */
function withFeatures(evidence, candidates, key, marked, aliases, chunksOfPage) {
  const searchRank = new Map(candidates.map((hit, rank) => [hit.chunkId, rank]));
  const heaviest = [...key.weights].sort((a, b) => b[1] - a[1])[0]?.[0];
  const byPage = new Map();
  for (const e of evidence) {
    const m = marked.get(e.hit.chunkId);
    const inTitle = markedTerms(m?.title ?? '', key.terms, aliases);
    const inHeadings = markedTerms(m?.headings ?? '', key.terms, aliases);
    const inBody = markedTerms(m?.body ?? '', key.terms, aliases);
    e.sets = { inTitle, inHeadings, inBody };
    // The share of a label's words that are the question's: "Partial Indexes" is about the question, "SQLite C Interface" is not.
    const precision = (text) => {
      const words = text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
      return words === 0 ? 0 : markedWords(text, key.terms, aliases).length / words;
    };
    e.precision = { title: precision(m?.title ?? ''), heading: precision((m?.headings ?? '').split(HEADING_SEPARATOR).at(-1) ?? '') };
    const page = byPage.get(e.hit.sourceId) ?? { items: [], firstRank: Infinity, lexicalSum: 0, bestLexical: 0, held: new Set() };
    page.items.push(e);
    page.firstRank = Math.min(page.firstRank, searchRank.get(e.hit.chunkId));
    page.lexicalSum += e.lexical;
    page.bestLexical = Math.max(page.bestLexical, e.lexical);
    for (const t of [...inTitle, ...inHeadings, ...inBody]) page.held.add(t);
    byPage.set(e.hit.sourceId, page);
  }
  const total = evidence.length;
  return evidence.map((e) => {
    const page = byPage.get(e.hit.sourceId);
    const { inTitle, inHeadings, inBody } = e.sets;
    const label = (t) => inTitle.has(t) || inHeadings.has(t);
    const chunks = chunksOfPage(e.hit.sourceId);
    const features = {
      coverage: e.coverage,
      lexical: e.lexical,
      title: e.titleCoverage,
      heading: e.headingCoverage,
      proximity: e.proximity,
      support: e.support / 3,
      // new, page level
      pageShare: page.items.length / total,
      pageFirstRank: 1 / (1 + page.firstRank),
      pageLexicalSum: Math.log1p(page.lexicalSum),
      pageConcentration: page.lexicalSum > 0 ? page.bestLexical / page.lexicalSum : 0,
      pageCoverage: share(key, (t) => page.held.has(t)),
      pageChunksLog: Math.log10(Math.max(1, chunks)),
      pageDensity: Math.min(1, page.items.length / Math.max(1, chunks)),
      // new, chunk level
      ownRank: 1 / (1 + searchRank.get(e.hit.chunkId)),
      labelCoverage: share(key, (t) => label(t)),
      heaviestInLabel: heaviest !== undefined && label(heaviest) ? 1 : 0,
      heaviestInTitle: heaviest !== undefined && inTitle.has(heaviest) ? 1 : 0,
      heaviestHeld: heaviest !== undefined && (label(heaviest) || inBody.has(heaviest)) ? 1 : 0,
      fullCoverage: e.coverage >= 0.999 ? 1 : 0,
      opening: e.hit.position === 0 ? 1 : 0,
      titlePrecision: e.precision.title,
      headingPrecision: e.precision.heading,
    };
    delete e.precision;
    delete e.sets;
    return { ...e, features };
  });
}

/** The answer answerer.ts would give with the candidates ordered by `score` (features → number), as the bench's answer shape. */
export function answer(g, question, score, weighed = weigh(g, question)) {
  const nothing = () => ({ ...noAnswer(g.guru.name), trust_score: 0, can_receive_feedback: false });
  if (!weighed) return nothing();
  const { graded, key } = weighed;
  const evidence = score === undefined ? weighed.evidence : process.env.PAGE_ONLY ? byPage(weighed.evidence, score) : weighed.evidence.map((e) => ({ ...e, score: score(e.features) })).sort((a, b) => b.score - a.score);
  const [best] = evidence;
  const verdict = judge(evidence, key);
  if (!best || verdict.kind === 'decline') return nothing();
  const weights = withAliasWeights(key.weights, graded.aliases);
  const strong = verdict.trust >= STRONG_TRUST;
  const other = strong ? undefined : evidence.find((item) => item.hit.sourceId !== best.hit.sourceId && item.score >= best.score * SECOND_SOURCE_FLOOR);
  const passages = [focus(g, question, best, evidence, graded, key, weights), ...(other ? [passage(g, graded, other.hit)] : [])];
  const { content, references } = composeExtractive(passages, weights, verdict.kind === 'partial' ? verdict.gap : []);
  return { content, references, trust_score: verdict.trust, can_receive_feedback: true, best };
}

/**
 * The model orders the pages only (a page scores as its best candidate); within a page, and for the
 * score that answerer.ts compares (close passages, second page), the hand-weighted score stays.
 */
function byPage(evidence, score) {
  const pageScore = new Map();
  for (const e of evidence) pageScore.set(e.hit.sourceId, Math.max(pageScore.get(e.hit.sourceId) ?? -Infinity, score(e.features)));
  return [...evidence].sort((a, b) => pageScore.get(b.hit.sourceId) - pageScore.get(a.hit.sourceId) || b.score - a.score);
}

function focus(g, asked, best, evidence, query, key, weights) {
  const close = samePageOptions(best, evidence);
  const hits = [...close];
  const seen = new Set(close.map((hit) => hit.chunkId));
  for (const hit of close) {
    for (const next of g.retriever.chunksAround(hit.sourceId, hit.position + 1, hit.position + 1)) {
      if (next.headings === hit.headings || seen.has(next.chunkId)) continue;
      seen.add(next.chunkId);
      hits.push(next);
    }
  }
  const marked = g.retriever.markedChunks(query, hits.map((hit) => hit.chunkId));
  const title = marked.get(best.hit.chunkId)?.title ?? '';
  const q = { key, aliases: query.aliases, inTitle: markedTerms(title, key.terms, query.aliases), how: asksHow(asked) };
  const options = hits.map((hit) => ({ hit, passage: passage(g, query, hit) }));
  const shown = (option) => [marked.get(option.hit.chunkId)?.headings ?? '', ...markedQuote(option.passage, weights, WORD_BUDGET.first)].join('\n\n');
  const chosen = chooseFocus(options, (option) => quoteWorth(shown(option), q));
  return chosen?.passage ?? passage(g, query, best.hit);
}

function passage(g, query, hit) {
  const around = g.retriever.chunksAround(hit.sourceId, hit.position - 1, hit.position + 1).filter((chunk) => chunk.headings === hit.headings);
  const marked = g.retriever.highlighted(query, around.map((chunk) => chunk.chunkId));
  const text = (chunk) => (chunk === undefined ? '' : (marked.get(chunk.chunkId) ?? chunk.body));
  return {
    sourceId: hit.sourceId,
    title: hit.title,
    headings: hit.headings,
    url: hit.url,
    before: text(around.find((chunk) => chunk.position === hit.position - 1)),
    marked: text(around.find((chunk) => chunk.position === hit.position) ?? hit),
    after: text(around.find((chunk) => chunk.position === hit.position + 1)),
  };
}
