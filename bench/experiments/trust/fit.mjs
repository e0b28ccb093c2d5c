// Fits the trust estimate (trust.ts, TRUST_MODEL) to collect.mjs's rows: logistic regression of
// "the answer is right" on the answer's signals, over every answered question (an answered
// off-topic question counts as wrong), with a ridge penalty on standardized signals.
// Prints, for each set, how well a model fitted to the other sets ranks its answers (AUC, from
// 0.5 for chance to 1) beside the trust score the rows were collected with, then the model fitted
// to all sets as trust.ts holds it.
//   node bench/experiments/trust/fit.mjs rows.json [RIDGE]
import console from 'node:console';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { rankingAuc } from '../../qa/score.js';

const [file, ridgeText = '1'] = process.argv.slice(2);
if (!file) throw new Error('usage: fit.mjs rows.json [RIDGE]');
const ridge = Number(ridgeText);
const rows = JSON.parse(readFileSync(file, 'utf8')).filter((row) => row.signals !== undefined);
const names = Object.keys(rows[0].signals);
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

/** Ridge logistic regression by Newton's method; returns raw-scale { intercept, weights }. */
function fit(train) {
  const X = train.map(values);
  const y = train.map(right);
  const mean = names.map((_, j) => X.reduce((s, x) => s + x[j], 0) / X.length);
  const sd = names.map((_, j) => Math.sqrt(X.reduce((s, x) => s + (x[j] - mean[j]) ** 2, 0) / X.length) || 1);
  const Z = X.map((x) => [1, ...x.map((v, j) => (v - mean[j]) / sd[j])]);
  let beta = new Array(names.length + 1).fill(0);
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
      gradient[k] += ridge * beta[k];
      hessian[k][k] += ridge;
    }
    const delta = solve(hessian, gradient);
    beta = beta.map((b, k) => b - delta[k]);
    if (Math.max(...delta.map(Math.abs)) < 1e-9) break;
  }
  const weights = Object.fromEntries(names.map((name, j) => [name, beta[j + 1] / sd[j]]));
  const intercept = beta[0] - names.reduce((s, name, j) => s + weights[name] * mean[j], 0);
  return { intercept, weights };
}

/** AUC of scores against the rows' labels. */
const auc = (scores, labels) => rankingAuc(scores.filter((_, i) => labels[i]), scores.filter((_, i) => !labels[i])) ?? NaN;

const chance = (model, row) => 1 / (1 + Math.exp(-values(row).reduce((s, v, j) => s + v * model.weights[names[j]], model.intercept)));

const sets = [...new Set(rows.map((row) => row.set))];
console.log(`${rows.length} answered questions, ${rows.filter(right).length} right; ridge ${ridge}`);
console.log('set'.padEnd(12), 'answered', 'right', 'AUC fitted without it', 'AUC of the rows\' trust');
for (const set of sets) {
  const test = rows.filter((row) => row.set === set);
  const model = fit(rows.filter((row) => row.set !== set));
  const labels = test.map(right);
  console.log(set.padEnd(12), String(test.length).padStart(8), String(labels.filter(Boolean).length).padStart(5), auc(test.map((row) => chance(model, row)), labels).toFixed(3).padStart(21), auc(test.map((row) => row.trust), labels).toFixed(3).padStart(22));
}
const model = fit(rows);
const round = (n) => Number(n.toFixed(4));
console.log('\nFitted to all sets (trust.ts TRUST_MODEL):');
console.log(JSON.stringify({ intercept: round(model.intercept), weights: Object.fromEntries(Object.entries(model.weights).map(([k, v]) => [k, round(v)])) }, null, 2));
