// Fits the trust estimate (trust.ts, TRUST_MODEL) to collect.mjs's rows: logistic regression of
// "the answer is right" on the answer's signals, over every answered question (an answered
// off-topic question counts as wrong), with a ridge penalty on standardized signals.
// Prints, for each set, how well a model fitted to the other sets ranks its answers (AUC, from
// 0.5 for chance to 1) beside the trust score the rows were collected with. A model is surer of
// the sets it was fitted to than it should be of new ones, so its chances are then rescaled to
// match how often the left-out sets' answers were right (Platt scaling of the out-of-set
// predictions), and the model fitted to all sets is printed, so rescaled, as trust.ts holds it.
//   node bench/experiments/trust/fit.mjs rows.json [RIDGE] [SIGNALS]
// SIGNALS: a comma list of the signals the model may use (default: all); the rest weigh 0.
import console from 'node:console';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { rankingAuc } from '../../qa/score.js';

const [file, ridgeText = '1', allowed] = process.argv.slice(2);
if (!file) throw new Error('usage: fit.mjs rows.json [RIDGE] [SIGNALS]');
const ridge = Number(ridgeText);
const rows = JSON.parse(readFileSync(file, 'utf8')).filter((row) => row.signals !== undefined);
const names = Object.keys(rows[0].signals);
const usable = allowed === undefined ? names : allowed.split(',');
for (const name of usable) if (!names.includes(name)) throw new Error(`no signal ${name}; the rows have ${names.join(', ')}`);
const values = (row) => names.map((name) => Number(row.signals[name]));
const right = (row) => (row.kind === 'on-topic' && row.correct ? 1 : 0);

/** Solves A x = b (Gaussian elimination with partial pivoting). */
function solve(A, b) {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[pivot][c])) pivot = r;
    [M[c], M[pivot]] = [M[pivot], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
    x[r] = s / M[r][r];
  }
  return x;
}

/** Ridge logistic regression of y on the columns of X by Newton's method; returns raw-scale { intercept, coefficients }. */
function logistic(X, y, penalty) {
  const columns = X[0].length;
  const mean = Array.from({ length: columns }, (_, j) => X.reduce((s, x) => s + x[j], 0) / X.length);
  const sd = Array.from({ length: columns }, (_, j) => Math.sqrt(X.reduce((s, x) => s + (x[j] - mean[j]) ** 2, 0) / X.length) || 1);
  const Z = X.map((x) => [1, ...x.map((v, j) => (v - mean[j]) / sd[j])]);
  let beta = new Array(columns + 1).fill(0);
  for (let step = 0; step < 50; step++) {
    const gradient = new Array(beta.length).fill(0);
    const hessian = beta.map(() => new Array(beta.length).fill(0));
    Z.forEach((z, i) => {
      const p = 1 / (1 + Math.exp(-z.reduce((s, v, k) => s + v * beta[k], 0)));
      const w = p * (1 - p);
      z.forEach((a, k) => {
        gradient[k] += (p - y[i]) * a;
        z.forEach((b, l) => (hessian[k][l] += w * a * b));
      });
    });
    for (let k = 1; k < beta.length; k++) {
      gradient[k] += penalty * beta[k];
      hessian[k][k] += penalty;
    }
    const delta = solve(hessian, gradient);
    beta = beta.map((b, k) => b - delta[k]);
    if (Math.max(...delta.map(Math.abs)) < 1e-9) break;
  }
  const coefficients = sd.map((deviation, j) => beta[j + 1] / deviation);
  return { intercept: beta[0] - coefficients.reduce((s, c, j) => s + c * mean[j], 0), coefficients };
}

/**
 * The direction a signal must move trust in, when it has one: more of the question's words in the
 * passage, its title or heading, or more agreement never lowers trust; a close runner-up page or
 * candidates crowding on one page never raise it. Without this, signals that move together (the
 * words in the passage and in its quote) take opposite signs, and an answer would gain trust by
 * holding fewer of the question's words: off-topic questions that slip through hold few.
 */
const DIRECTION = {
  coverage: 1, titleCoverage: 1, headingCoverage: 1, anchorCoverage: 1, proximity: 1, lexical: 1, support: 1, quoteWorth: 1,
  runnerUp: -1, concentration: -1,
};

/**
 * The trust model fitted to rows: { intercept, weights by signal name }. A signal whose weight comes
 * out against its direction is left out (weight 0) and the rest fitted again, until none is.
 */
function fit(train) {
  const used = new Set(usable);
  for (;;) {
    const kept = names.filter((name) => used.has(name));
    const { intercept, coefficients } = logistic(train.map((row) => kept.map((name) => Number(row.signals[name]))), train.map(right), ridge);
    const weights = Object.fromEntries(names.map((name) => [name, used.has(name) ? coefficients[kept.indexOf(name)] : 0]));
    const against = kept.filter((name) => (DIRECTION[name] ?? 0) * weights[name] < 0);
    if (against.length === 0) return { intercept, weights };
    // The one most against its direction goes first: dropping it may right the others.
    const worst = against.reduce((a, b) => (DIRECTION[a] * weights[a] <= DIRECTION[b] * weights[b] ? a : b));
    used.delete(worst);
  }
}

/** AUC of scores against the rows' labels. */
const auc = (scores, labels) => rankingAuc(scores.filter((_, i) => labels[i]), scores.filter((_, i) => !labels[i])) ?? NaN;

const logit = (model, row) => values(row).reduce((s, v, j) => s + v * model.weights[names[j]], model.intercept);
const chance = (model, row) => 1 / (1 + Math.exp(-logit(model, row)));

/** How often answers were right, by the chance given them. */
function reliability(chances, labels) {
  const bands = [0, 0.2, 0.4, 0.6, 0.7, 1.01];
  return bands.slice(0, -1).map((low, i) => {
    const inBand = labels.filter((_, k) => chances[k] >= low && chances[k] < bands[i + 1]);
    return `${Math.round(low * 100)}–${Math.min(100, Math.round(bands[i + 1] * 100))} %: ${inBand.filter(Boolean).length} of ${inBand.length}`;
  }).join(', ');
}

const sets = [...new Set(rows.map((row) => row.set))];
console.log(`${rows.length} answered questions, ${rows.filter(right).length} right; ridge ${ridge}`);
console.log('set'.padEnd(12), 'answered', 'right', 'AUC fitted without it', 'AUC of the rows\' trust');
const outOfSet = [];
const setAucs = [];
for (const set of sets) {
  const test = rows.filter((row) => row.set === set);
  const model = fit(rows.filter((row) => row.set !== set));
  const labels = test.map(right);
  for (const row of test) outOfSet.push({ logit: logit(model, row), right: right(row) });
  setAucs.push(auc(test.map((row) => chance(model, row)), labels));
  console.log(set.padEnd(12), String(test.length).padStart(8), String(labels.filter(Boolean).length).padStart(5), setAucs.at(-1).toFixed(3).padStart(21), auc(test.map((row) => row.trust), labels).toFixed(3).padStart(22));
}
const meanAuc = setAucs.reduce((sum, value) => sum + value, 0) / setAucs.length;
console.log(`fitted without the set: mean AUC ${meanAuc.toFixed(3)}, lowest ${Math.min(...setAucs).toFixed(3)}`);
const labels = outOfSet.map((item) => item.right);
const platt = logistic(outOfSet.map((item) => [item.logit]), labels, 0);
const [slope] = platt.coefficients;
const sigmoid = (z) => 1 / (1 + Math.exp(-z));
console.log(`\nOut of set, right answers by the chance given (fitted without their set): ${reliability(outOfSet.map((item) => sigmoid(item.logit)), labels)}`);
console.log(`Rescaled (logit × ${slope.toFixed(3)} + ${platt.intercept.toFixed(3)}): ${reliability(outOfSet.map((item) => sigmoid(slope * item.logit + platt.intercept)), labels)}`);

const model = fit(rows);
const round = (n) => Number(n.toFixed(4));
const rescaled = {
  intercept: round(slope * model.intercept + platt.intercept),
  weights: Object.fromEntries(Object.entries(model.weights).map(([name, weight]) => [name, round(slope * weight)])),
};
console.log('\nFitted to all sets and rescaled (trust.ts TRUST_MODEL):');
console.log(JSON.stringify(rescaled, null, 2));
