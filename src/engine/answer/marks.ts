/**
 * Reading the words the search marked in a passage (see Retriever.markedChunks):
 * which question word each stands for, and where it stands among the words.
 */
import { MARK_CLOSE, MARK_OPEN } from '../search/retriever.js';

const TOKEN = new RegExp(`${MARK_OPEN}([^${MARK_CLOSE}]*)${MARK_CLOSE}|[\\p{L}\\p{N}]+`, 'gu');

/**
 * The question word a marked word stands for. The search matched it after
 * stemming, so the two share their start: "indexes" is "index", "deleted" is
 * "delete"; the longest shared start wins.
 */
export function termOf(word: string, terms: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let found: string | undefined;
  let overlap = 0;
  for (const term of terms) {
    let common = 0;
    while (common < term.length && common < lower.length && term[common] === lower[common]) common += 1;
    const enough = common === term.length || common === lower.length || common >= Math.max(3, Math.min(term.length, lower.length) - 3);
    if (enough && common > overlap) {
      found = term;
      overlap = common;
    }
  }
  return found;
}

/** Each marked question word with its place among all the words of the text. */
export function markedWords(text: string, terms: readonly string[]): { term: string; at: number }[] {
  const found: { term: string; at: number }[] = [];
  let at = 0;
  for (const match of text.matchAll(TOKEN)) {
    const marked = match[1];
    if (marked !== undefined) {
      const term = termOf(marked, terms);
      if (term !== undefined) found.push({ term, at });
    }
    at += 1;
  }
  return found;
}

/** The question words marked in the text. */
export const markedTerms = (text: string, terms: readonly string[]): Set<string> => new Set(markedWords(text, terms).map((word) => word.term));

/** Whether two different question words stand within `distance` words of each other. */
export function together(words: readonly { term: string; at: number }[], a: string, b: string, distance: number): boolean {
  const first = words.filter((word) => word.term === a).map((word) => word.at);
  return words.some((word) => word.term === b && first.some((at) => Math.abs(at - word.at) <= distance));
}

export const unmark = (text: string): string => text.replaceAll(MARK_OPEN, '').replaceAll(MARK_CLOSE, '');
