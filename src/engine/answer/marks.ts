/**
 * Reading the words the search marked in a passage (see Retriever.markedChunks):
 * which question word each stands for, and where it stands among the words.
 */
import { MARK_CLOSE, MARK_OPEN } from '../search/retriever.js';

/** A marked question word, where it stands, and whether the text holds a synonym of it rather than the word. */
export interface MarkedWord {
  readonly term: string;
  readonly at: number;
  readonly byAlias: boolean;
}

const NO_ALIASES: ReadonlyMap<string, string> = new Map();

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

/**
 * Each marked question word with its place among all the words of the text. A marked word that is
 * an alias (a synonym the search added, see withSynonyms) stands for its question word.
 */
export function markedWords(text: string, terms: readonly string[], aliases: ReadonlyMap<string, string> = NO_ALIASES): MarkedWord[] {
  const vocabulary = aliases.size === 0 ? terms : [...terms, ...aliases.keys()];
  const found: MarkedWord[] = [];
  let at = 0;
  for (const match of text.matchAll(TOKEN)) {
    const marked = match[1];
    if (marked !== undefined) {
      const word = termOf(marked, vocabulary);
      const term = word === undefined ? undefined : (aliases.get(word) ?? word);
      if (term !== undefined) found.push({ term, at, byAlias: word !== term });
    }
    at += 1;
  }
  return found;
}

/** The question words marked in the text (by a synonym too). */
export const markedTerms = (text: string, terms: readonly string[], aliases: ReadonlyMap<string, string> = NO_ALIASES): Set<string> =>
  new Set(markedWords(text, terms, aliases).map((word) => word.term));

/** The question words the text holds only through a synonym. */
export function termsByAliasOnly(words: readonly MarkedWord[]): Set<string> {
  const direct = new Set(words.filter((word) => !word.byAlias).map((word) => word.term));
  return new Set(words.filter((word) => word.byAlias && !direct.has(word.term)).map((word) => word.term));
}

/** Whether two different question words stand within `distance` words of each other. */
export function together(words: readonly MarkedWord[], a: string, b: string, distance: number): boolean {
  const first = words.filter((word) => word.term === a).map((word) => word.at);
  return words.some((word) => word.term === b && first.some((at) => Math.abs(at - word.at) <= distance));
}

export const unmark = (text: string): string => text.replaceAll(MARK_OPEN, '').replaceAll(MARK_CLOSE, '');
