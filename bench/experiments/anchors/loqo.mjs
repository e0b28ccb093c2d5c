// How much of the sqlite gain survives choosing the weight without the question: leave one question
// out, pick anchorCoverage's weight from a grid by right page first (then correct) on the other 49
// questions (ties: the smaller weight), and answer the left-out question with it.
// Usage: node bench/experiments/anchors/loqo.mjs sqlite DIR
import console from 'node:console';
import process from 'node:process';
import { join } from 'node:path';
import { openGuru } from '../rank/pipeline.mjs';
import { loadQuestions, runVariant } from './run.mjs';

const WEIGHTS = [0, 0.25, 0.35, 0.5, 0.65, 0.75, 1];
const [set, dataRoot] = process.argv.slice(2);
const g = Object.assign(openGuru(dataRoot, set), { dir: join(dataRoot, set) });
const qa = loadQuestions(set);
const runs = WEIGHTS.map((weight) => runVariant(g, qa, weight === 0 ? {} : { feature: 'anchorCoverage', weight }).scored.filter((s) => s.kind === 'on-topic'));
const value = (s) => (s.first ? 1000 : 0) + (s.correct ? 1 : 0);
let first = 0;
let correct = 0;
const chosen = [];
qa.questions.forEach((_, i) => {
  const totals = runs.map((scored) => scored.reduce((sum, s, j) => sum + (j === i ? 0 : value(s)), 0));
  const best = totals.indexOf(Math.max(...totals));
  chosen.push(WEIGHTS[best]);
  first += runs[best][i].first ? 1 : 0;
  correct += runs[best][i].correct ? 1 : 0;
});
console.log(`LOQO over weights ${WEIGHTS.join(', ')}: right page first ${first}, correct ${correct} (of ${qa.questions.length}); weights chosen: ${[...new Set(chosen)].map((w) => `${w} ×${chosen.filter((c) => c === w).length}`).join(', ')}`);
