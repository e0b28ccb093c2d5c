/**
 * How well each candidate passage supports an answer to the question, from
 * signals a reader would use: whether it holds the question's key words
 * (weighted by rarity in the guru's knowledge), whether its page title or
 * section heading names them (a passage about the topic, not one that
 * mentions it), whether the question's words stand together in it as they do
 * in the question, whether other pages link to its page by them (what others call the page), and
 * whether other passages of the same page agree.
 */
import type { ChunkHit, MarkedChunk } from '../search/retriever.js';
import { markedTerms, markedWords, termsByAliasOnly, together } from './marks.js';

/** The question's words and how much each one matters. */
export interface KeyTerms {
  /** Content words in question order. */
  readonly terms: readonly string[];
  /** Rarity weight of each word in the guru's knowledge; a word it never uses weighs the most. */
  readonly weights: ReadonlyMap<string, number>;
  readonly total: number;
  /** Words the guru's knowledge never uses: each may name a topic it lacks. */
  readonly unseen: ReadonlySet<string>;
  /**
   * How much a word the knowledge never uses says, 0-1: little in a few pages (most words are
   * missing from them), much in thousands of chunks.
   */
  readonly unseenSays: number;
  /**
   * How foreign the question's words are to the knowledge, 0-1: the mean of their weights relative
   * to a word it never uses. Low when the question is asked in words the knowledge uses throughout
   * ("server", "request", "certificate"), high when most of its words are ones it never or barely uses.
   * In a knowledge base of a few chunks every word is rare or everywhere: there it tends to the
   * middle (UNDECIDED_RARITY), saying nothing either way.
   */
  readonly rarity: number;
}

/** What the search found in the candidates, and what was found by meaning. */
export interface Matches {
  /** Candidate → its title, headings and body with the question's words marked (absent: none matched). */
  readonly marked: ReadonlyMap<number, MarkedChunk>;
  /** Candidates found by meaning (vector search), best first. */
  readonly related: readonly number[];
  /** Synonyms the search added → the question word each stands for (none when absent). */
  readonly aliases?: ReadonlyMap<string, string>;
  /** Source → the anchor texts other pages link to it with, the question's words marked (absent: none match). */
  readonly anchors?: ReadonlyMap<number, readonly string[]>;
}

export interface Evidence {
  readonly hit: ChunkHit;
  /** Weighted share of the question's words the passage holds, 0-1. */
  readonly coverage: number;
  /** Weighted share held by its page title, 0-1. */
  readonly titleCoverage: number;
  /** Weighted share held by its heading path, 0-1: the section is about the question. */
  readonly headingCoverage: number;
  /** Weighted share held by the anchor texts other pages link to its page with, 0-1: the page is about the question. */
  readonly anchorCoverage: number;
  /** Weighted share of the question's adjacent word pairs that stand close together in it, 0-1. */
  readonly proximity: number;
  /** The search's BM25 score relative to the best candidate's, 0-1. */
  readonly lexical: number;
  /** How many other candidates of the same page cover at least half of the question. */
  readonly support: number;
  /** 1 for the passage found first by meaning, falling with rank; 0 when not found by meaning. */
  readonly meaning: number;
  /** Question words it lacks, heaviest first. */
  readonly missing: readonly string[];
  /** Ranking score: higher is better. */
  readonly score: number;
}

/** BM25's inverse document frequency; always positive. */
export const inverseDocumentFrequency = (chunkCount: number, documentFrequency: number): number =>
  Math.log(1 + (chunkCount - documentFrequency + 0.5) / (documentFrequency + 0.5));

/** Numbers (years, versions) name no topic by themselves: they count half. */
const NUMBER = /^\p{N}+$/u;

/**
 * How many chunks a knowledge base needs before a word it never uses says much: in a few pages
 * most words are missing, in thousands a missing word likely names a topic they do not cover.
 */
const SMALL_KNOWLEDGE_CHUNKS = 50;

/** The rarity of a question whose words say nothing of how foreign it is to the knowledge. */
const UNDECIDED_RARITY = 0.55;

/**
 * The question's words weighted by rarity. A word the knowledge never uses weighs the most in a
 * large knowledge base; in a small one, about as much as its rarest word that it does use.
 */
export function keyTerms(terms: readonly string[], chunkCount: number, documentFrequency: (term: string) => number): KeyTerms {
  const chunks = Math.max(chunkCount, 1);
  const frequencies = terms.map(documentFrequency);
  const seen = frequencies.filter((frequency) => frequency > 0);
  const neverUsed = inverseDocumentFrequency(chunks, 0);
  const rarestUsed = seen.length > 0 ? inverseDocumentFrequency(chunks, Math.min(...seen)) : neverUsed;
  const confidence = chunks / (chunks + SMALL_KNOWLEDGE_CHUNKS);
  const weights = new Map(
    terms.map((term, i) => {
      const frequency = frequencies[i] ?? 0;
      const weight = frequency > 0 ? inverseDocumentFrequency(chunks, frequency) : confidence * neverUsed + (1 - confidence) * rarestUsed;
      return [term, NUMBER.test(term) ? weight / 2 : weight] as const;
    }),
  );
  let total = 0;
  for (const weight of weights.values()) total += weight;
  const meanRarity = terms.length === 0 ? 1 : terms.reduce((sum, term) => sum + (weights.get(term) ?? 0), 0) / terms.length / neverUsed;
  const rarity = confidence * meanRarity + (1 - confidence) * UNDECIDED_RARITY;
  return { terms, weights, total, unseen: new Set(terms.filter((_, i) => frequencies[i] === 0)), unseenSays: confidence, rarity };
}

/** Consecutive content words of the question: "foreign key constraints" → (foreign, key), (key, constraints). */
export function adjacentPairs(terms: readonly string[]): [string, string][] {
  return terms.slice(1).map((term, i) => [terms[i] as string, term]);
}

/** Two question words standing within this many words of each other count as together. */
export const PAIR_DISTANCE = 3;

const SUPPORT_COVERAGE = 0.5;
const MAX_SUPPORT = 3;

/**
 * Weights of the ranking score's parts; coverage counts 1. Set by hand on the sqlite questions; a
 * linear model fitted to them (with page-level features too) did no better under cross-validation
 * nor held out: bench/experiments/rank/NOTES.md.
 */
const TITLE_WEIGHT = 0.5;
const HEADING_WEIGHT = 0.5;
/**
 * Anchor text counts like a title (measured on sqlite, then once on the held-out sets:
 * bench/experiments/anchors/NOTES.md).
 */
const ANCHOR_WEIGHT = 0.5;
/** The search's own BM25 score, relative to the best one (it counts how often and how densely words occur). */
const BM25_WEIGHT = 1;
const PROXIMITY_WEIGHT = 0.6;
const SUPPORT_WEIGHT = 0.3;
const MEANING_WEIGHT = 0.3;
/** The share of its weight a question word loses when a passage holds only a synonym of it. */
const SYNONYM_DISCOUNT = 0.5;

function share(key: KeyTerms, holds: (term: string) => boolean): number {
  if (key.total === 0) return 0;
  let held = 0;
  for (const [term, weight] of key.weights) if (holds(term)) held += weight;
  return held / key.total;
}

/** Scores every candidate (given best first by the search) and returns them best first. */
export function weighEvidence(candidates: readonly ChunkHit[], key: KeyTerms, matches: Matches): Evidence[] {
  const pairs = adjacentPairs(key.terms);
  const pairWeights = pairs.map(([a, b]) => (key.weights.get(a) ?? 0) + (key.weights.get(b) ?? 0));
  const pairTotal = pairWeights.reduce((sum, weight) => sum + weight, 0);
  const relatedRank = new Map(matches.related.map((id, rank) => [id, rank]));
  const topScore = Math.max(0, ...candidates.map((hit) => hit.score));
  const aliases = matches.aliases ?? new Map<string, string>();

  const base = candidates.map((hit) => {
    const marked = matches.marked.get(hit.chunkId);
    const inTitle = markedTerms(marked?.title ?? '', key.terms, aliases);
    const inHeadings = markedTerms(marked?.headings ?? '', key.terms, aliases);
    const words = markedWords(marked?.body ?? '', key.terms, aliases);
    const held = new Set([...inTitle, ...inHeadings, ...words.map((word) => word.term)]);
    // A word held only through a synonym is likelier to mean something else: it counts half.
    const bySynonym = [...termsByAliasOnly(words)].filter((term) => !inTitle.has(term) && !inHeadings.has(term));
    const coverage = share(key, (term) => held.has(term)) - SYNONYM_DISCOUNT * share(key, (term) => bySynonym.includes(term));
    const titleCoverage = share(key, (term) => !NUMBER.test(term) && inTitle.has(term));
    const headingCoverage = share(key, (term) => !NUMBER.test(term) && inHeadings.has(term));
    const inAnchors = markedTerms((matches.anchors?.get(hit.sourceId) ?? []).join('\n'), key.terms, aliases);
    const anchorCoverage = share(key, (term) => !NUMBER.test(term) && inAnchors.has(term));
    const lexical = topScore > 0 ? Math.max(0, hit.score) / topScore : 0;
    const close = pairs.reduce((sum, [a, b], i) => sum + (together(words, a, b, PAIR_DISTANCE) ? (pairWeights[i] ?? 0) : 0), 0);
    // A one-word question has no words to stand together: the word itself is enough.
    const proximity = pairTotal === 0 ? (held.size > 0 ? 1 : 0) : close / pairTotal;
    const semanticRank = relatedRank.get(hit.chunkId);
    const meaning = semanticRank === undefined ? 0 : 1 / (1 + semanticRank / 3);
    const missing = [...key.weights]
      .filter(([term]) => !held.has(term))
      .sort((a, b) => b[1] - a[1])
      .map(([term]) => term);
    return { hit, lexical, coverage, titleCoverage, headingCoverage, anchorCoverage, proximity, meaning, missing };
  });

  const coveringPerSource = new Map<number, number>();
  for (const item of base) {
    if (item.coverage >= SUPPORT_COVERAGE) coveringPerSource.set(item.hit.sourceId, (coveringPerSource.get(item.hit.sourceId) ?? 0) + 1);
  }
  return base
    .map(({ hit, lexical, coverage, titleCoverage, headingCoverage, anchorCoverage, proximity, meaning, missing }) => {
      const others = (coveringPerSource.get(hit.sourceId) ?? 0) - (coverage >= SUPPORT_COVERAGE ? 1 : 0);
      const support = Math.min(others, MAX_SUPPORT);
      const score =
        coverage +
        BM25_WEIGHT * lexical +
        TITLE_WEIGHT * titleCoverage +
        HEADING_WEIGHT * headingCoverage +
        ANCHOR_WEIGHT * anchorCoverage +
        PROXIMITY_WEIGHT * proximity +
        SUPPORT_WEIGHT * (support / MAX_SUPPORT) +
        MEANING_WEIGHT * meaning;
      return { hit, coverage, titleCoverage, headingCoverage, anchorCoverage, proximity, lexical, support, meaning, missing, score };
    })
    .sort((a, b) => b.score - a.score);
}
