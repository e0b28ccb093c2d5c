// Summarises a `node --trace-opt --trace-deopt` log (file argument, or stdin): TurboFan compiles and their
// compile time, per function and in all, and deoptimizations by reason.
//   node --trace-opt --trace-deopt bench/experiments/parse/threads.mjs > /tmp/trace.txt
//   node bench/experiments/parse/opt-trace.mjs /tmp/trace.txt [how many functions, 25]
// With --trace-deopt-verbose it also lists where each eager deoptimization happened, with that source line.
import console from 'node:console';
import { readFileSync } from 'node:fs';
import process from 'node:process';

const text = readFileSync(process.argv[2] ?? 0, 'utf8');
const shown = Number(process.argv[3] ?? 25);
const functions = new Map();
const entry = (name) => {
  let found = functions.get(name);
  if (!found) functions.set(name, (found = { compiles: 0, ms: 0, deopts: 0, reasons: new Map() }));
  return found;
};
let compiles = 0;
let ms = 0;
const reasons = new Map();
/** Eager deoptimizations by the place they happened: `file:line:col` → { reason, count }. */
const sites = new Map();
let lastBailout;
const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
for (const line of text.split('\n')) {
  const compiled = /^\[completed (?:optimizing|compiling) .*?<JSFunction ?(.*?) ?\(sfi.*took ([\d.]+), ([\d.]+), ([\d.]+) ms/.exec(line);
  if (compiled) {
    const took = Number(compiled[2]) + Number(compiled[3]) + Number(compiled[4]);
    const f = entry(compiled[1] || '(anonymous)');
    f.compiles += 1;
    f.ms += took;
    compiles += 1;
    ms += took;
    continue;
  }
  const bailout = /^\[bailout \(kind: ([^,]+), reason: (.*?)\): begin\. deoptimizing .*?<JSFunction ?(.*?) ?\(sfi/.exec(line);
  if (bailout) {
    const reason = `${bailout[1]}: ${bailout[2]}`;
    const f = entry(bailout[3] || '(anonymous)');
    f.deopts += 1;
    count(f.reasons, reason);
    count(reasons, reason);
    lastBailout = bailout[1] === 'deopt-eager' ? `${bailout[3] || '(anonymous)'}: ${bailout[2]}` : undefined;
    continue;
  }
  const site = /;;; deoptimize at <(.*?)>(.*)/.exec(line);
  if (site && lastBailout) {
    const key = `${site[1]}${site[2].replace(/<file:\/\/[^>]*\//g, '<')}`;
    const s = sites.get(key) ?? { why: lastBailout, count: 0 };
    s.count += 1;
    sites.set(key, s);
    lastBailout = undefined;
  }
}
console.log(`TurboFan compiles ${compiles}, compile ms ${ms.toFixed(0)}`);
console.log([...reasons].sort((a, b) => b[1] - a[1]).map(([r, n]) => `  ${n} ${r}`).join('\n'));
const rows = [...functions].sort((a, b) => b[1].ms - a[1].ms).slice(0, shown);
for (const [name, f] of rows) {
  const why = [...f.reasons].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${n} ${r.replace(/^deopt-/, '')}`).join('; ');
  console.log(`${name.slice(0, 34).padEnd(34)} ${String(f.compiles).padStart(4)} ${f.ms.toFixed(0).padStart(6)} ms  ${why}`);
}

const sourceLine = (where) => {
  const [, file, line, column] = /^file:\/\/(.*):(\d+):(\d+)$/.exec(where) ?? [];
  if (!file) return '';
  try {
    const text = readFileSync(file, 'utf8').split('\n')[Number(line) - 1] ?? '';
    const at = Number(column) - 1;
    return `${text.slice(Math.max(0, at - 40), at)}⟨${text.slice(at, at + 60)}`.trim();
  } catch {
    return '';
  }
};
if (sites.size > 0) console.log('\neager deoptimizations by place:');
for (const [where, s] of [...sites].sort((a, b) => b[1].count - a[1].count)) {
  const place = where.replace(/^file:\/\/.*\//, '');
  console.log(`${String(s.count).padStart(3)} ${s.why}\n    at ${place}\n    ${sourceLine(where.split(' ')[0])}`);
}
