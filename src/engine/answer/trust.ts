/**
 * Whether the best passage answers the question, and how far to trust the answer.
 *
 * - Declined (trust 0): no passage holds enough of the question's key words
 *   (weighted by rarity, so a word the knowledge never uses weighs most, and
 *   when that word is the question's heaviest, more of the rest is needed), or
 *   the words it holds are scattered in a passage about something else.
 * - Otherwise the trust score is the estimated chance, in percent, that the
 *   answer holds what the question needs (trustScore below): at most 49 when
 *   the passage misses some key words (the answer says it covers the question
 *   in part), 69 unless the evidence is strong, and 90 in all: extractive
 *   answers quote, they do not reason.
 */
import type { Evidence, KeyTerms } from './evidence.js';

export type Verdict =
  /** Nothing in the knowledge answers this: say so, cite nothing. */
  | { readonly kind: 'decline' }
  /** The best passage covers only part of the question: quote it, say it is partial. */
  | { readonly kind: 'partial' }
  /** `strong`: every sign of a passage about the question is there, so one page is quoted, not two. */
  | { readonly kind: 'answer'; readonly strong: boolean };

/** Below this weighted share of the question's words, no passage answers it. */
export const MIN_COVERAGE = 0.4;
/**
 * When the question's heaviest word is one the knowledge never uses ("kubernetes"), it likely
 * names a topic the knowledge lacks: the rest of the question must be covered this well.
 */
export const MIN_COVERAGE_WITHOUT_TOPIC = 0.5;
/** A passage whose title and heading do not name the topic, nor holds the question's words together, needs this much. */
export const MIN_LOOSE_COVERAGE = 0.7;
/** From this share on, an answer is more than partial. */
export const FULL_COVERAGE = 0.75;

/** What a passage needs to count as strong evidence. */
const STRONG = { coverage: 0.9, heading: 0.3, proximity: 0.5, support: 2 } as const;

/**
 * What the trust estimate reads: the best passage's evidence (see evidence.ts), how the rest of
 * the ranking stands around it, and how much of the question its quote shows. Only evidence that
 * the passage answers this question: the kind of question or of quote (a how-question, a quote
 * showing code) was right more often on one manual and less often on another, so it does not carry
 * over to a knowledge base the fit never saw.
 */
export interface TrustSignals
  extends Pick<Evidence, 'coverage' | 'titleCoverage' | 'headingCoverage' | 'anchorCoverage' | 'proximity' | 'lexical' | 'support'> {
  /** The best passage of another page, by its score relative to the best one's; 0 when there is none. */
  readonly runnerUp: number;
  /**
   * How many of the ten best candidates come from the quoted page, as a share of ten, less the
   * page's share of the knowledge's chunks. A page holding the question's words in passage after
   * passage is often a catch-all (a reference, a manual's one long page) rather than the page about
   * the question; a page that is most of the knowledge holds most passages of any question.
   */
  readonly concentration: number;
  /** What the quote shows of the question (focus.ts, quoteWorth). */
  readonly quoteWorth: number;
  /** How many content words the question has. */
  readonly questionWords: number;
}

/**
 * The trust estimate: a logistic model of whether an extractive answer holds what the question
 * needs, fitted to the answers of the QA benchmark's six manuals and rescaled to how often the
 * answers of a manual left out of the fit were right (bench/experiments/trust: fit.mjs prints these
 * numbers, NOTES.md what they give). Word evidence alone ranks poorly: a wrong page often holds the
 * question's words as fully as the right one, so no single signal decides. A weight of 0: the fit
 * left the signal out, as it would have lowered trust for more of the question's words.
 */
const TRUST_MODEL: { readonly intercept: number; readonly weights: Readonly<Record<keyof TrustSignals, number>> } = {
  intercept: -3.0299,
  weights: {
    coverage: 0,
    titleCoverage: 1.4337,
    headingCoverage: 0.6561,
    anchorCoverage: 0.4582,
    proximity: 0.1639,
    lexical: 2.1784,
    support: 0,
    runnerUp: -0.3018,
    concentration: -1.0466,
    quoteWorth: 0.0666,
    questionWords: 0.0979,
  },
};

export const EXTRACTIVE_CEILING = 90;
/** The highest trust of an answer that says it covers the question only in part. */
export const PARTIAL_CEILING = 49;
/**
 * From this score on, an answer says "rely on me": it takes strong evidence (judge) as well as the
 * estimate. The right page's wrong section still looks like the right answer to the estimate.
 */
export const RELIABLE_TRUST = 70;

export function judge(best: Evidence | undefined, key: KeyTerms): Verdict {
  if (!best) return { kind: 'decline' };
  const heaviest = best.missing[0];
  const lacksTopic = heaviest !== undefined && key.unseen.has(heaviest) && key.weights.get(heaviest) === Math.max(...key.weights.values());
  // Found by meaning (with an embeddings provider) ranks a passage and backs it, but vector search
  // always returns something, so it cannot stand in for the question's words.
  const coverage = best.coverage;
  const heading = Math.max(best.titleCoverage, best.headingCoverage);
  const anchored = heading > 0 || best.proximity > 0;
  const needed = Math.max(MIN_COVERAGE, lacksTopic ? MIN_COVERAGE_WITHOUT_TOPIC : 0, anchored ? 0 : MIN_LOOSE_COVERAGE);
  if (coverage < needed) return { kind: 'decline' };
  if (coverage < FULL_COVERAGE) return { kind: 'partial' };
  const backing = best.support + (best.meaning > 0 ? 1 : 0);
  const strong =
    coverage >= STRONG.coverage && heading >= STRONG.heading && best.proximity >= STRONG.proximity && backing >= STRONG.support;
  return { kind: 'answer', strong };
}

/**
 * The trust score of an answer the verdict lets through: the estimated chance, in percent, that it
 * holds what the question needs; at least 1, at most 49 for a partial answer, 69 for one without
 * strong evidence and 90 for any.
 */
export function trustScore(signals: TrustSignals, verdict: Exclude<Verdict, { kind: 'decline' }>): number {
  let logit = TRUST_MODEL.intercept;
  for (const [name, weight] of Object.entries(TRUST_MODEL.weights) as [keyof TrustSignals, number][]) logit += weight * Number(signals[name]);
  const chance = 1 / (1 + Math.exp(-logit));
  const ceiling = verdict.kind === 'partial' ? PARTIAL_CEILING : verdict.strong ? EXTRACTIVE_CEILING : RELIABLE_TRUST - 1;
  return Math.max(1, Math.min(ceiling, Math.round(100 * chance)));
}
