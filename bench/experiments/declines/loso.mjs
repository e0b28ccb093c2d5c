// Leave-one-set-out choice of the two vocabulary thresholds of judge (src/engine/answer/trust.ts):
// reads the rows of inspect.mjs run on the code before them (A) and with them (B), chooses
// ORDINARY_VOCABULARY (the highest, on a 0.01 grid, that keeps every off-topic question declined
// under A declined) and FOREIGN_VOCABULARY (the lowest, on a 0.05 grid, above every on-topic
// question answered under A) on all sets but one, and prints that set's declines with them.
//   node bench/experiments/declines/loso.mjs rows-a.json rows-b.json
import console from 'node:console';
import { readFileSync } from 'node:fs';
import process from 'node:process';

const [fileA, fileB] = process.argv.slice(2);
const before = JSON.parse(readFileSync(fileA, 'utf8'));
const after = JSON.parse(readFileSync(fileB, 'utf8'));
const rows = before.map((row, i) => ({ ...row, rarity: after[i].rarity }));
const sets = [...new Set(rows.map((row) => row.set))];

function choose(training) {
  const declinedOff = training.filter((row) => row.kind === 'off' && row.declined).map((row) => row.rarity);
  const answeredOn = training.filter((row) => row.kind === 'on' && !row.declined).map((row) => row.rarity);
  return {
    ordinary: Math.floor((Math.min(...declinedOff) - 1e-9) * 100) / 100,
    foreign: Math.ceil((Math.max(...answeredOn) + 1e-9) * 20) / 20,
  };
}

const declines = (row, { ordinary, foreign }) => row.rarity >= foreign || (row.declined && row.rarity > ordinary);
function count(set, thresholds) {
  const of = rows.filter((row) => row.set === set);
  const on = of.filter((row) => row.kind === 'on');
  const off = of.filter((row) => row.kind === 'off');
  return `on-topic declined ${on.filter((row) => declines(row, thresholds)).length} of ${on.length}, off-topic declined ${off.filter((row) => declines(row, thresholds)).length} of ${off.length}`;
}

const all = choose(rows);
console.log(`all nine sets: ordinary ${all.ordinary}, foreign ${all.foreign}`);
for (const set of sets) {
  const thresholds = choose(rows.filter((row) => row.set !== set));
  const before = `${rows.filter((r) => r.set === set && r.kind === 'on' && r.declined).length}/${rows.filter((r) => r.set === set && r.kind === 'off' && r.declined).length}`;
  console.log(`${set.padEnd(11)} left out: ordinary ${thresholds.ordinary}, foreign ${thresholds.foreign} → ${count(set, thresholds)} (before: ${before}; all-set thresholds: ${count(set, all)})`);
}
