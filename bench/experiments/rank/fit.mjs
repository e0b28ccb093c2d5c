// Fits the answer ranking's weights on one question set (sqlite: the tuning set) as pairwise
// logistic regression, and chooses its features by leave-one-question-out cross-validation.
//
// Usage (after npm run build, with a kept bench guru, e.g. GURU_BENCH_QA_DATA=/tmp/qa):
//   node bench/experiments/rank/fit.mjs sqlite /tmp/qa                # forward selection, LOQO
//   node bench/experiments/rank/fit.mjs sqlite /tmp/qa f1,f2,...      # fit these features on all questions, print the weights
//   node bench/experiments/rank/fit.mjs sqlite /tmp/qa f1,f2,... postgresql,python   # and answer the held-out sets with them, once
//
// Each on-topic question gives pairs (a candidate of a right page, a candidate of another page);
// the model learns w so that w·(x_right − x_other) > 0, every question weighing the same (its pairs
// share a weight of 1). A question with no right page among its candidates teaches nothing.
// LOQO: for each question, fit on the others, answer it with the fitted order (the whole
// answer pipeline of answerer.ts, see pipeline.mjs) and score the answer as the bench does.
import console from 'node:console';
import process from 'node:process';
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';
import { answer, openGuru, weigh } from './pipeline.mjs';
import { missingTerms, scoreAnswer, summarize } from '../../qa/score.js';

/** The features of weighEvidence, weighted as by hand before this fit (meaning is 0 without embeddings). */
export const HAND = { coverage: 1, lexical: 1, title: 0.5, heading: 0.5, proximity: 0.6, support: 0.3 };
const BASE = Object.keys(HAND);
const L2 = Number(process.env.L2 ?? 0.01);
/** What makes a candidate right: its page is one the question lists (page), it holds the required terms (terms), either, or both. */
const LABEL = process.env.LABEL ?? 'page';

const pageOf = (url) => decodeURIComponent(new URL(url).pathname).replace(/^\/+/, '');

/** Pairwise logistic regression by Newton's method (a handful of features: the Hessian is tiny). */
export function fitPairs(questions, names) {
  const d = names.length;
  const diffs = [];
  for (const q of questions) {
    const right = q.evidence.filter((e) => e.right);
    const other = q.evidence.filter((e) => !e.right);
    if (right.length === 0 || other.length === 0) continue;
    const weight = 1 / (right.length * other.length);
    for (const r of right) for (const o of other) diffs.push({ x: names.map((n) => r.features[n] - o.features[n]), weight });
  }
  let w = new Array(d).fill(0);
  for (let iteration = 0; iteration < 50; iteration += 1) {
    const grad = w.map((wi) => 2 * L2 * wi);
    const hess = names.map((_, i) => names.map((__, j) => (i === j ? 2 * L2 : 0)));
    for (const { x, weight } of diffs) {
      const margin = x.reduce((s, xi, i) => s + xi * w[i], 0);
      const p = 1 / (1 + Math.exp(margin)); // probability the pair is misordered
      for (let i = 0; i < d; i += 1) {
        grad[i] -= weight * p * x[i];
        for (let j = 0; j < d; j += 1) hess[i][j] += weight * p * (1 - p) * x[i] * x[j];
      }
    }
    const step = solve(hess, grad);
    w = w.map((wi, i) => wi - step[i]);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return Object.fromEntries(names.map((n, i) => [n, w[i]]));
}

/**
 * Listwise (softmax) fit: maximises, per question, the probability that the first candidate is
 * one of a right page, P = Σ_right e^s / Σ_all e^s with s = w·x: it weighs what decides the first
 * place, where all pairs weigh the whole order. Gradient ascent from the hand weights.
 */
export function fitList(questions, names) {
  const lists = questions
    .filter((q) => q.evidence.some((e) => e.right) && q.evidence.some((e) => !e.right))
    .map((q) => q.evidence.map((e) => ({ x: names.map((n) => e.features[n]), right: e.right })));
  // Newton steps with the curvature of log Σ_all e^s only (the covariance of x under the softmax):
  // it bounds the loss's from above, so each step lowers the loss (a majorize-minimize step).
  let w = names.map((n) => HAND[n] ?? 0);
  // PRIOR=hand: the penalty pulls towards the hand weights (a correction of them) rather than towards 0.
  const prior = process.env.PRIOR === 'hand' ? [...w] : w.map(() => 0);
  const d = w.length;
  for (let iteration = 0; iteration < 100; iteration += 1) {
    const grad = w.map((wi, i) => 2 * L2 * (wi - prior[i]));
    const hess = names.map((_, i) => names.map((__, j) => (i === j ? 2 * L2 : 0)));
    for (const list of lists) {
      const s = list.map((c) => c.x.reduce((t, xi, i) => t + xi * w[i], 0));
      const top = Math.max(...s);
      const e = s.map((v) => Math.exp(v - top));
      const all = e.reduce((a, b) => a + b, 0);
      const pos = e.reduce((a, v, k) => a + (list[k].right ? v : 0), 0);
      const mean = new Array(d).fill(0);
      for (let k = 0; k < list.length; k += 1) {
        const pAll = e[k] / all;
        const coef = pAll - (list[k].right ? e[k] / pos : 0);
        for (let i = 0; i < d; i += 1) {
          grad[i] += (coef * list[k].x[i]) / lists.length;
          mean[i] += pAll * list[k].x[i];
        }
      }
      for (let k = 0; k < list.length; k += 1) {
        const pAll = e[k] / all;
        for (let i = 0; i < d; i += 1) for (let j = 0; j < d; j += 1) hess[i][j] += (pAll * (list[k].x[i] - mean[i]) * (list[k].x[j] - mean[j])) / lists.length;
      }
    }
    const step = solve(hess, grad);
    w = w.map((wi, i) => wi - step[i]);
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return Object.fromEntries(names.map((n, i) => [n, w[i]]));
}

const FIT = process.env.FIT === 'pairs' ? fitPairs : fitList;

function solve(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c += 1) {
    let pivot = c;
    for (let r = c + 1; r < n; r += 1) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    for (let r = 0; r < n; r += 1) {
      if (r === c || m[c][c] === 0) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k += 1) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => (row[i] === 0 ? 0 : row[n] / row[i]));
}

/** Scaled so that coverage weighs 1, as in evidence.ts (the order, and the ratios answerer.ts compares, do not change). */
export function normalized(weights) {
  const unit = weights.coverage > 0 ? weights.coverage : 1;
  return Object.fromEntries(Object.entries(weights).map(([n, v]) => [n, v / unit]));
}

export const scorer = (weights) => (features) => Object.entries(weights).reduce((s, [n, v]) => s + v * features[n], 0);

export function loadSet(set, dataRoot) {
  const qa = JSON.parse(readFileSync(new URL(`../../qa/${set}.json`, import.meta.url), 'utf8'));
  const g = openGuru(dataRoot, set);
  const questions = qa.questions.map((q) => {
    const weighed = weigh(g, q.question);
    const evidence = (weighed?.evidence ?? []).map((e) => {
      const page = q.pages.includes(pageOf(e.hit.url));
      const holds = missingTerms(`${e.hit.headings}\n${e.hit.body}`, q.terms).length === 0;
      return Object.assign(e, { right: LABEL === 'terms' ? holds : LABEL === 'either' ? page || holds : LABEL === 'both' ? page && holds : page });
    });
    return { ...q, weighed, evidence };
  });
  const offTopic = qa.offTopic.map((text) => ({ question: text, pages: [], terms: [], weighed: weigh(g, text) }));
  return { g, questions, offTopic };
}

/** The bench's figures for every question answered under `weightsFor(question)`. */
export function run(data, weightsFor) {
  const scored = [];
  let first = 0;
  for (const q of data.questions) {
    const weights = weightsFor(q);
    const a = answer(data.g, q.question, weights && scorer(weights), q.weighed);
    if (a.best && q.pages.includes(pageOf(a.best.hit.url))) first += 1;
    scored.push(scoreAnswer(q, a, 'on-topic', 0));
  }
  for (const q of data.offTopic) scored.push(scoreAnswer(q, answer(data.g, q.question, weightsFor(q) && scorer(weightsFor(q)), q.weighed), 'off-topic', 0));
  return { ...summarize(scored), first, scored };
}

/** Leave one question out: each question answered with weights fitted on the others. */
export function loqo(data, names) {
  const fits = new Map(data.questions.map((q) => [q, FIT(data.questions.filter((o) => o !== q), names)]));
  const all = FIT(data.questions, names);
  return run(data, (q) => fits.get(q) ?? all);
}

const describe = (r) => `correct ${r.scored.filter((s) => s.kind === 'on-topic' && s.correct).length}, right page ${r.scored.filter((s) => s.rightPage).length}, first page right ${r.first}, off-topic declined ${r.offTopicDeclined}/${r.offTopic}, confidently wrong ${(r.confidentlyWrong * 100).toFixed(1)} %, median words ${r.medianWords}`;
const show = (w) => Object.entries(normalized(w)).map(([n, v]) => `${n} ${v.toFixed(3)}`).join(', ');

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [set, dataRoot, chosen, heldOut] = process.argv.slice(2);
  const data = loadSet(set, dataRoot);
  const candidates = Object.keys(data.questions.find((q) => q.evidence.length > 0).evidence[0].features).filter((n) => !BASE.includes(n));
  console.log(`hand weights:        ${describe(run(data, () => HAND))}`);
  if (chosen) {
    const names = chosen.split(',');
    const w = FIT(data.questions, names);
    console.log(`fitted on all:       ${describe(run(data, () => w))}\n  ${show(w)}`);
    console.log(`LOQO:                ${describe(loqo(data, names))}`);
    // Held-out sets: answered once with the weights fitted on this set, never fitted on.
    for (const other of (heldOut ?? '').split(',').filter(Boolean)) {
      const held = loadSet(other, dataRoot);
      console.log(`${other}, hand weights:  ${describe(run(held, () => HAND))}`);
      console.log(`${other}, fitted:        ${describe(run(held, () => w))}`);
      if (process.env.VERBOSE) for (const [label, weights] of [['hand', HAND], ['fitted', w]]) for (const s of run(held, () => weights).scored) console.log(`  ${label} ${s.correct ? 'ok  ' : 'MISS'} ${s.question} — ${s.cited.join(', ')}`);
    }
  } else {
    let names = [...BASE];
    let best = loqo(data, names);
    console.log(`base refit, LOQO:    ${describe(best)}\n  ${show(FIT(data.questions, names))}`);
    const key = (r) => [r.scored.filter((s) => s.kind === 'on-topic' && s.correct).length, r.first, r.scored.filter((s) => s.rightPage).length];
    const better = (a, b) => { const [x, y] = [key(a), key(b)]; for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return x[i] > y[i]; return false; };
    for (;;) {
      let step;
      for (const n of candidates.filter((c) => !names.includes(c))) {
        const r = loqo(data, [...names, n]);
        console.log(`  + ${n.padEnd(18)} ${describe(r)}`);
        if (better(r, step?.r ?? best)) step = { n, r };
      }
      if (!step) break;
      names = [...names, step.n];
      best = step.r;
      console.log(`chose ${step.n}: ${describe(best)}\n  ${show(FIT(data.questions, names))}`);
    }
    console.log(`selected: ${names.join(',')}`);
  }
}
