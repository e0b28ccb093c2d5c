/**
 * Question words a passage lacks, matched by meaning: a word with no exact match counts by the
 * closest word (cosine of static word vectors) of the passage's title and headings, or of its body.
 */
import { isStopWord } from '../search/query.js';
import { unmark } from './marks.js';
import type { KeyTerms } from './evidence.js';
import type { WordVectors } from './word-vectors.js';

const WORD = /\p{L}+/gu;

/** The distinct content words of a text, lowercased. */
export function contentWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const match of unmark(text).toLowerCase().matchAll(WORD)) if (match[0].length > 2 && !isStopWord(match[0])) words.add(match[0]);
  return words;
}

export interface SoftMatch {
  /** Weighted share of the missing words that the title or headings hold by meaning, 0-1 of the question. */
  readonly heading: number;
  /** Same, by the body's words. */
  readonly body: number;
}

/** How close the best word of `words` comes to `term`, counted from `threshold` (0 below it). */
function closeness(vectors: WordVectors, term: string, words: ReadonlySet<string>, threshold: number): number {
  let best = 0;
  for (const word of words) {
    const similarity = vectors.similarity(term, word) ?? 0;
    if (similarity > best) best = similarity;
  }
  return best >= threshold ? best : 0;
}

export function softMatch(
  vectors: WordVectors,
  key: KeyTerms,
  missing: readonly string[],
  fields: { readonly heading: string; readonly body: string },
  threshold: number,
): SoftMatch {
  if (key.total === 0 || missing.length === 0) return { heading: 0, body: 0 };
  const headingWords = contentWords(fields.heading);
  const bodyWords = contentWords(fields.body);
  let heading = 0;
  let body = 0;
  for (const term of missing) {
    if (!vectors.has(term)) continue;
    const weight = key.weights.get(term) ?? 0;
    heading += weight * closeness(vectors, term, headingWords, threshold);
    body += weight * closeness(vectors, term, bodyWords, threshold);
  }
  return { heading: heading / key.total, body: body / key.total };
}

/** The weighted mean of the words' unit vectors (undefined when none has one). */
export function centroid(vectors: WordVectors, words: Iterable<string>, weightOf: (word: string) => number = () => 1): Float32Array | undefined {
  let sum: Float32Array | undefined;
  for (const word of words) {
    const vector = vectors.vector?.(word);
    if (!vector) continue;
    sum ??= new Float32Array(vector.length);
    const weight = weightOf(word);
    for (let d = 0; d < vector.length; d += 1) sum[d] = (sum[d] as number) + weight * (vector[d] as number);
  }
  return sum;
}

export function cosine(a: Float32Array | undefined, b: Float32Array | undefined): number {
  if (!a || !b) return 0;
  let dot = 0;
  let x = 0;
  let y = 0;
  for (let d = 0; d < a.length; d += 1) {
    dot += (a[d] as number) * (b[d] as number);
    x += (a[d] as number) ** 2;
    y += (b[d] as number) ** 2;
  }
  return x === 0 || y === 0 ? 0 : dot / Math.sqrt(x * y);
}
