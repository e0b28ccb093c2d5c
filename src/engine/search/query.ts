/**
 * Turns free user text into an FTS5 query that cannot break FTS5's syntax:
 * words are extracted, stop words dropped, and every word is sent as a quoted
 * string joined by OR, so operators, quotes, parentheses and column filters in
 * the text are just characters. BM25 then ranks documents by how many of the
 * words they hold and how rare those words are.
 */
import { MAX_QUESTION_CHARS } from '../../core/schemas.js';

// Function words that carry no topic; a question made only of them keeps them.
const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being below
  between both but by can could did didn't do does doesn't doing don't down during each few for from further
  get gets getting got had has have having he her here hers herself him himself his how i if in into is isn't it it's its
  itself just let me more most my myself no nor not of off on once only or other our ours ourselves out over own
  please same she should so some such than that the their theirs them themselves then there these they this those
  through to too under until up very was wasn't we were what when where which while who whom why will with would
  you your yours yourself yourselves tell explain describe`
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => word.replace(/'/g, '')),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/**
 * A contraction of a function word ("won't", "I'm", "you've", "that's"): a function word too. Read
 * with its apostrophe, so "I'd" is one and "ID" is not; stripped of it, it would be a word the
 * knowledge never uses ("wont", "im") and would weigh in the question as much as its subject.
 */
const CONTRACTION = /^(?:[\p{L}]+n't|([\p{L}]+)'(?:m|re|ve|ll|d|s))$/u;

function isContraction(word: string): boolean {
  const match = CONTRACTION.exec(word);
  if (match === null) return false;
  const base = match[1];
  return base === undefined || STOP_WORDS.has(base);
}

const MAX_TERMS = 32;
/**
 * Characters of a text that are looked at: room for a question and the one before
 * it (each capped at MAX_QUESTION_CHARS). Whatever the caller passes, building a
 * query costs no more than this.
 */
export const MAX_QUERY_TEXT_CHARS = 2 * MAX_QUESTION_CHARS + 1;

export interface TextQuery {
  /** The distinct search words, in the order they appear. */
  readonly terms: readonly string[];
  /** The FTS5 MATCH expression, or undefined when the text has no searchable word. */
  readonly match: string | undefined;
  /** True when every word is a function word ("what is it?"): the text names no topic. */
  readonly onlyStopWords: boolean;
}

/** Quotes one word as an FTS5 string. */
export const quoteTerm = (term: string): string => `"${term.replace(/"/g, '""')}"`;

/** Reads words until MAX_TERMS topic words are found, within the first MAX_QUERY_TEXT_CHARS characters. */
export function parseQuery(text: string): TextQuery {
  const content = new Set<string>();
  const stopWords = new Set<string>();
  for (const match of text.slice(0, MAX_QUERY_TEXT_CHARS).toLowerCase().matchAll(WORD)) {
    const word = match[0].replace(/['’]/g, '');
    if (!STOP_WORDS.has(word) && !isContraction(match[0].replace(/’/g, "'"))) content.add(word);
    else if (stopWords.size < MAX_TERMS) stopWords.add(word);
    if (content.size === MAX_TERMS) break;
  }
  const terms = [...(content.size > 0 ? content : stopWords)];
  return {
    terms,
    match: terms.length > 0 ? terms.map(quoteTerm).join(' OR ') : undefined,
    onlyStopWords: content.size === 0,
  };
}
