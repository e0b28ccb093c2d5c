/**
 * Static word embeddings (GloVe-like), read from a compact binary: the question's words and a
 * passage's words are compared by meaning, so "enable" is near "turn on" without a synonym list.
 *
 * Format: "GWV1", uint32 count, uint32 dims, uint32 byte length of the words (UTF-8, one per line),
 * the words, then count × dims int8 (each vector scaled to its largest component; cosine ignores scale).
 */
import { readFileSync } from 'node:fs';

export interface WordVectors {
  /** Cosine similarity of two words, or undefined when either is unknown. */
  similarity(a: string, b: string): number | undefined;
  /** Whether the word has a vector. */
  has(word: string): boolean;
  /** The word's unit vector, when it has one. */
  vector?(word: string): Float32Array | undefined;
  /** Words related to this one (synonym maps only). */
  related?(word: string): string[];
}

const MAGIC = 'GWV1';
const HEADER_BYTES = 16;

export function readWordVectors(bytes: Buffer): WordVectors {
  if (bytes.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a word-vector file');
  const count = bytes.readUInt32LE(4);
  const dims = bytes.readUInt32LE(8);
  const textBytes = bytes.readUInt32LE(12);
  const words = bytes.toString('utf8', HEADER_BYTES, HEADER_BYTES + textBytes).split('\n');
  const start = HEADER_BYTES + textBytes;
  const values = new Int8Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + start + count * dims));
  const index = new Map(words.map((word, i) => [word, i]));
  const norms = new Float32Array(count);
  for (let i = 0; i < count; i += 1) {
    let sum = 0;
    for (let d = i * dims; d < (i + 1) * dims; d += 1) sum += (values[d] as number) ** 2;
    norms[i] = Math.sqrt(sum);
  }
  const threshold = Number(process.env.GURU_NEIGHBOUR_THRESHOLD ?? 0.7);
  return {
    has: (word) => index.has(word),
    related(word) {
      const i = index.get(word);
      if (i === undefined) return [];
      const found: [number, string][] = [];
      for (let j = 0; j < count; j += 1) {
        if (j === i) continue;
        let dot = 0;
        for (let d = 0; d < dims; d += 1) dot += (values[i * dims + d] as number) * (values[j * dims + d] as number);
        const similarity = dot / ((norms[i] as number) * (norms[j] as number) || 1);
        if (similarity >= threshold) found.push([similarity, words[j] as string]);
      }
      return found.sort((a, b) => b[0] - a[0]).map(([, other]) => other);
    },
    vector(word) {
      const i = index.get(word);
      if (i === undefined) return undefined;
      const unit = new Float32Array(dims);
      for (let d = 0; d < dims; d += 1) unit[d] = (values[i * dims + d] as number) / ((norms[i] as number) || 1);
      return unit;
    },
    similarity(a, b) {
      const i = index.get(a);
      const j = index.get(b);
      if (i === undefined || j === undefined) return undefined;
      if (i === j) return 1;
      let dot = 0;
      for (let d = 0; d < dims; d += 1) dot += (values[i * dims + d] as number) * (values[j * dims + d] as number);
      const norm = (norms[i] as number) * (norms[j] as number);
      return norm === 0 ? 0 : dot / norm;
    },
  };
}

/** Naive base forms of an English word, the word itself first. */
function baseForms(word: string): string[] {
  const forms = [word];
  if (word.endsWith('ies')) forms.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) forms.push(word.slice(0, -2));
  if (word.endsWith('s')) forms.push(word.slice(0, -1));
  if (word.endsWith('ing')) forms.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  if (word.endsWith('ed')) forms.push(word.slice(0, -2), word.slice(0, -1));
  return forms;
}

/** WordNet synonyms and derivations (word → related words, space-separated) as a 0/1 similarity. */
export function readSynonymMap(json: string): WordVectors {
  const map = new Map(Object.entries(JSON.parse(json) as Record<string, string>).map(([word, related]) => [word, new Set(related.split(' '))]));
  const lemma = (word: string) => baseForms(word).find((form) => map.has(form));
  return {
    has: (word) => lemma(word) !== undefined,
    related(word) {
      const base = lemma(word);
      return base === undefined ? [] : [...(map.get(base) as Set<string>)];
    },
    similarity(a, b) {
      const base = lemma(a);
      if (base === undefined) return undefined;
      const related = map.get(base) as Set<string>;
      return baseForms(b).some((form) => related.has(form)) ? 1 : 0;
    },
  };
}

let loaded: WordVectors | null | undefined;

/** The word vectors named by GURU_WORD_VECTORS (or WordNet map GURU_WORDNET), read once on first use; null when none. */
export function wordVectors(): WordVectors | null {
  if (loaded !== undefined) return loaded;
  const path = process.env.GURU_WORD_VECTORS;
  const wordnet = process.env.GURU_WORDNET;
  loaded = path ? readWordVectors(readFileSync(path)) : wordnet ? readSynonymMap(readFileSync(wordnet, 'utf8')) : null;
  return loaded;
}
