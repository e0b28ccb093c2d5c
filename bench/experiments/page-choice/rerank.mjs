// Scratch: how often the first page is a right one under page-level priors added to the evidence
// score, from dump-candidates.mjs output. Usage: node rerank.mjs /tmp/cands.jsonl [verbose]
import console from 'node:console';
import process from 'node:process';
import { readFileSync } from 'node:fs';

const rows = readFileSync(process.argv[2], 'utf8').trim().split('\n').map((line) => JSON.parse(line)).filter((r) => r.right.length > 0);
const verbose = process.argv[3] === 'verbose';

/** Weighted share of the key terms that something holds. */
const share = (r, holds) => {
  let held = 0, total = 0;
  for (const [term, weight] of Object.entries(r.weights)) { total += weight; if (holds(term)) held += weight; }
  return total === 0 ? 0 : held / total;
};

/** Page facts for a candidate. */
function pageFacts(r, c) {
  const p = r.pages[c.sourceId];
  // density: weighted mean over terms of the share of the page's chunks holding it
  let dens = 0, total = 0;
  for (const [term, weight] of Object.entries(r.weights)) { total += weight; dens += weight * (p.perTerm[term]?.length ?? 0) / (p.chunks + (globalThis.K ?? 0)); }
  const density = total === 0 ? 0 : dens / total;
  // sections holding any term / all sections
  const sectionsWith = new Set(Object.values(p.perTerm).flat());
  const spread = sectionsWith.size / p.sections;
  // best single section's share vs the page's share
  const sectionShare = Math.max(0, ...[...sectionsWith].map((s) => share(r, (term) => p.perTerm[term]?.includes(s))));
  const pageShare = share(r, (term) => (p.perTerm[term]?.length ?? 0) > 0);
  return { density, spread, sectionShare, pageShare, chunks: p.chunks, sections: p.sections, sectionsWith: sectionsWith.size };
}

export function evaluate(params, label) {
  let right = 0, right2 = 0;
  const wins = [];
  for (const r of rows) {
    const scored = r.candidates.map((c) => {
      const f = pageFacts(r, c);
      const prior =
        params.density * f.density +
        params.concentration * (f.pageShare > 0 ? f.sectionShare / f.pageShare : 0) -
        params.size * Math.log10(Math.max(1, f.chunks)) -
        params.scatter * (f.sectionsWith / Math.max(1, f.chunks)) -
        (params.hub ?? 0) * (1 - Math.min(1, f.density)) * Math.log10(Math.max(1, f.chunks));
      return { c, f, s: c.score + prior };
    }).sort((a, b) => b.s - a.s);
    const best = scored[0];
    const ok = best && r.right.includes(best.c.page);
    const second = scored.find((x) => x.c.sourceId !== best?.c.sourceId);
    if (ok) right += 1;
    if (ok || (second && r.right.includes(second.c.page))) right2 += 1;
    wins.push({ q: r.question, ok, page: best?.c.page });
    if (verbose) {
      const seen = new Set();
      const top = scored.filter((x) => !seen.has(x.c.sourceId) && seen.add(x.c.sourceId)).slice(0, 5);
      const rank = scored.filter((x, i, all) => all.findIndex((y) => y.c.sourceId === x.c.sourceId) === i).findIndex((x) => r.right.includes(x.c.page));
      console.log(`${ok ? 'ok  ' : 'MISS'} ${r.question}  right=${r.right.join(',')} rank=${rank}`);
      for (const x of top) console.log(`   ${x.s.toFixed(2)} (${x.c.score.toFixed(2)}) ${x.c.page} ch=${x.f.chunks} sec=${x.f.sections} dens=${x.f.density.toFixed(2)} spread=${x.f.spread.toFixed(2)} secSh=${x.f.sectionShare.toFixed(2)}/${x.f.pageShare.toFixed(2)} cov=${x.c.coverage.toFixed(2)} t=${x.c.titleCoverage.toFixed(2)} h=${x.c.headingCoverage.toFixed(2)} lex=${x.c.lexical.toFixed(2)} p=${x.c.proximity.toFixed(2)} s=${x.c.support} | ${x.c.headings}`);
    }
  }
  console.log(`${label ?? JSON.stringify(params)}: first page right ${right}/${rows.length}, first or second ${right2}/${rows.length}`);
  return wins;
}

globalThis.K = Number(process.env.K ?? 0);
const base = { density: 0, concentration: 0, size: 0, scatter: 0 };
if (process.argv[4]) evaluate({ ...base, ...JSON.parse(process.argv[4]) }, undefined);
else evaluate(base, 'baseline');
