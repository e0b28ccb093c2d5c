// Does anchor text help find the right page? Answers a bench question set through the replicated
// answer pipeline (../rank/pipeline.mjs) with the hand-weighted ranking, and with anchor text used
// (a) as an extra candidate list fused with the word search and/or (b) as title-like evidence added
// to each candidate's score. Prints the bench's figures per variant and, with VERBOSE=1, every
// question whose cited page or verdict changed.
//
// Usage (after npm run build, with kept bench gurus under DIR/<set>/guru.sqlite):
//   node bench/experiments/anchors/run.mjs sqlite DIR                      # the grid of variants (tuning)
//   node bench/experiments/anchors/run.mjs postgresql DIR 'VARIANT'        # one variant, e.g. held out
// A variant is a comma list: nav=<share>, repeat=pages|distinct, extra=<pages> (a), feature=<name>,
// weight=<w> (b). Features: anchorCoverage, anchorShare, anchorRank.
import console from 'node:console';
import process from 'node:process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';
import { answer, openGuru, weigh } from '../rank/pipeline.mjs';
import { scoreAnswer, summarize } from '../../qa/score.js';
import { anchorIndex, collectAnchors } from './anchors.mjs';

const dist = (p) => import(new URL(`../../../dist/${p}`, import.meta.url).href);
const { markedTerms } = await dist('engine/answer/marks.js');
const { COLUMN_WEIGHTS } = await dist('engine/search/full-text.js');

const HAND = { coverage: 1, lexical: 1, title: 0.5, heading: 0.5, proximity: 0.6, support: 0.3 };
const NUMBER = /^\p{N}+$/u;
const pageOf = (url) => decodeURIComponent(new URL(url).pathname).replace(/^\/+/, '');

const parseVariant = (text) =>
  Object.fromEntries(
    (text || 'base')
      .split(',')
      .filter((part) => part.includes('='))
      .map((part) => part.split('='))
      .map(([k, v]) => [k, k === 'repeat' || k === 'feature' ? v : Number(v)]),
  );

/** The guru's anchor index for one navigation share and repetition, kept per (guru, settings). */
const indexes = new Map();
function indexFor(g, variant) {
  const key = `${g.dir}|${variant.nav ?? 0.05}|${variant.repeat ?? 'pages'}`;
  if (!indexes.has(key)) indexes.set(key, anchorIndex(collectAnchors(g.db, { navShare: variant.nav ?? 0.05 }), { repeat: variant.repeat ?? 'pages' }));
  return indexes.get(key);
}

/** Source id of each page, and the best chunk of one source for a query (the search's own BM25). */
function pagesOf(g) {
  if (!g.pages) {
    g.pages = new Map(g.db.prepare('SELECT id, url FROM data_sources WHERE url IS NOT NULL').all().map((s) => [pageOf(s.url), s.id]));
    g.bestChunk = g.db.prepare(
      `SELECT c.id AS chunkId, c.source_id AS sourceId, s.type AS sourceType, s.url AS url, c.title AS title, c.headings AS headings,
              c.body AS body, s.labels AS labels, c.position AS position,
              -bm25(chunks_fts, ${COLUMN_WEIGHTS.title}, ${COLUMN_WEIGHTS.headings}, ${COLUMN_WEIGHTS.body}) AS score
       FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN data_sources s ON s.id = c.source_id
       WHERE chunks_fts MATCH ? AND c.source_id = ? ORDER BY score DESC LIMIT 1`,
    );
  }
  return g.pages;
}

/** (a) The best chunk of each of the `limit` pages whose anchor texts match the question best. */
const anchorCandidates = (g, variant) => (graded) => {
  if (!variant.extra) return [];
  const pages = pagesOf(g);
  return [
    indexFor(g, variant)
      .pages(graded.match, variant.extra)
      .flatMap(({ page }) => (pages.has(page) ? (g.bestChunk.all(graded.match, pages.get(page)) ?? []) : [])),
  ];
};

/** (b) Anchor features of every candidate, from its page's anchor texts. */
function withAnchorFeatures(g, variant, weighed) {
  const index = indexFor(g, variant);
  const { key, graded, evidence } = weighed;
  const pages = [...new Set(evidence.map((e) => pageOf(e.hit.url)))];
  const rows = index.matching(graded.match, pages);
  const held = new Map(); // page → term → linking pages whose anchor holds it
  for (const row of rows) {
    const terms = held.get(row.page) ?? new Map();
    for (const term of markedTerms(row.marked, key.terms, graded.aliases)) terms.set(term, (terms.get(term) ?? 0) + row.n);
    held.set(row.page, terms);
  }
  const rank = new Map(index.pages(graded.match, 40).map(({ page }, i) => [page, i]));
  const share = (holds) => {
    if (key.total === 0) return 0;
    let sum = 0;
    for (const [term, weight] of key.weights) if (!NUMBER.test(term)) sum += weight * holds(term);
    return sum / key.total;
  };
  for (const e of evidence) {
    const page = pageOf(e.hit.url);
    const terms = held.get(page) ?? new Map();
    const linking = Math.max(1, index.linking(page));
    e.features.anchorCoverage = share((t) => (terms.has(t) ? 1 : 0));
    e.features.anchorShare = share((t) => Math.min(1, (terms.get(t) ?? 0) / linking));
    e.features.anchorRank = rank.has(page) ? 1 / (1 + rank.get(page)) : 0;
    e.anchorTerms = [...terms].map(([t, n]) => `${t}:${n}/${linking}`).join(' ');
  }
  return weighed;
}

const linear = (weights) => (features) => Object.entries(weights).reduce((s, [n, v]) => s + v * (features[n] ?? 0), 0);

export function loadQuestions(set) {
  return JSON.parse(readFileSync(new URL(`../../qa/${set}.json`, import.meta.url), 'utf8'));
}

/** Every question of the set answered under one variant: the bench's figures, and per question its answer. */
export function runVariant(g, qa, variant) {
  const weights = variant.feature ? { ...HAND, [variant.feature]: variant.weight ?? 0.5 } : HAND;
  const one = (question, kind, q) => {
    const weighed = weigh(g, question, anchorCandidates(g, variant));
    if (weighed && (variant.feature || variant.extra)) withAnchorFeatures(g, variant, weighed);
    const a = answer(g, question, linear(weights), weighed);
    const page = a.best ? pageOf(a.best.hit.url) : undefined;
    const pageRank = weighed && q ? [...new Set([...weighed.evidence].sort((x, y) => linear(weights)(y.features) - linear(weights)(x.features)).map((e) => pageOf(e.hit.url)))].findIndex((p) => q.pages.includes(p)) : -1;
    return { ...scoreAnswer(q ?? { question, pages: [], terms: [] }, a, kind, 0), first: q ? q.pages.includes(page) : false, page, pageRank, anchorTerms: a.best?.anchorTerms };
  };
  const scored = [...qa.questions.map((q) => one(q.question, 'on-topic', q)), ...qa.offTopic.map((text) => one(text, 'off-topic'))];
  return { ...summarize(scored), scored, first: scored.filter((s) => s.first).length };
}

export const figures = (r) => ({
  correct: r.scored.filter((s) => s.kind === 'on-topic' && s.correct).length,
  cited: r.scored.filter((s) => s.kind === 'on-topic' && s.rightPage).length,
  first: r.first,
  inTop5: r.scored.filter((s) => s.kind === 'on-topic' && s.pageRank >= 0 && s.pageRank < 5).length,
  confidentlyWrong: `${(r.confidentlyWrong * 100).toFixed(1)} %`,
  declined: `${r.offTopicDeclined}/${r.offTopic}`,
  medianWords: r.medianWords,
});

const GRID = [
  'base',
  ...[0.25, 0.5, 1].flatMap((w) => ['anchorCoverage', 'anchorShare', 'anchorRank'].map((f) => `feature=${f},weight=${w}`)),
  ...[10, 20].map((k) => `extra=${k}`),
  'extra=10,feature=anchorShare,weight=0.5',
  'nav=0.02,feature=anchorShare,weight=0.5',
  'nav=1,feature=anchorShare,weight=0.5',
  'repeat=distinct,feature=anchorRank,weight=0.5',
];

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [set, dataRoot, ...variants] = process.argv.slice(2);
  const g = Object.assign(openGuru(dataRoot, set), { dir: join(dataRoot, set) });
  const qa = loadQuestions(set);
  const base = runVariant(g, qa, {});
  for (const text of variants.length > 0 ? variants : GRID) {
    const before = process.cpuUsage();
    const r = runVariant(g, qa, parseVariant(text));
    const cpu = process.cpuUsage(before);
    console.log(`${text.padEnd(44)} ${JSON.stringify(figures(r))} ${((cpu.user + cpu.system) / 1e3).toFixed(0)} ms CPU`);
    if (process.env.VERBOSE && text !== 'base') {
      r.scored.forEach((s, i) => {
        const b = base.scored[i];
        if (s.page !== b.page || s.correct !== b.correct || s.declined !== b.declined) {
          console.log(`  ${b.correct ? 'ok' : '--'}→${s.correct ? 'ok' : '--'} ${s.first ? 'F' : ' '} ${s.question.slice(0, 70).padEnd(70)} ${b.page ?? '(declined)'} → ${s.page ?? '(declined)'} [right page rank ${b.pageRank} → ${s.pageRank}] anchors: ${s.anchorTerms ?? ''}`);
        }
      });
    }
  }
}
