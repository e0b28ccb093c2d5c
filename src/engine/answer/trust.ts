/**
 * Whether the best passage answers the question, and how far to trust it:
 * from the quality of the evidence, not from word overlap alone.
 *
 * - 0, declined: no passage holds enough of the question's key words (weighted
 *   by rarity, so a word the knowledge never uses weighs most, and when that
 *   word is the question's heaviest, more of the rest is needed), or the
 *   words it holds are scattered in a passage about something else.
 * - 1-49, partial: the passage misses some of the key words.
 * - 50-69: it holds the key words, but not all signs of a passage about the
 *   question are there: check it.
 * - 70-90: it holds (nearly) all the key words, close together as in the
 *   question, under a title or heading that names them, and other passages of
 *   its page (or a search by meaning) agree. Extractive answers quote, they do not reason: the ceiling
 *   is 90.
 */
import type { Evidence, KeyTerms } from './evidence.js';

export type Verdict =
  /** Nothing in the knowledge answers this: say so, cite nothing. */
  | { readonly kind: 'decline' }
  /** The best passage covers only part of the question: quote it, say it is partial. */
  | { readonly kind: 'partial'; readonly trust: number }
  | { readonly kind: 'answer'; readonly trust: number };

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

/** What a passage needs for a score of 70 or more. */
const STRONG = { coverage: 0.9, heading: 0.3, proximity: 0.5, support: 2 } as const;

export const EXTRACTIVE_CEILING = 90;
/** From this score on, the evidence is strong: rely on the answer. */
export const STRONG_TRUST = 70;
const BANDS = { partial: [1, 49], checked: [50, STRONG_TRUST - 1], strong: [STRONG_TRUST, EXTRACTIVE_CEILING] } as const;

const within = ([low, high]: readonly [number, number], quality: number): number =>
  Math.round(low + (high - low) * Math.min(1, Math.max(0, quality)));

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
  const backing = best.support + (best.meaning > 0 ? 1 : 0);
  const agreement = Math.min(1, backing / STRONG.support);
  if (coverage < FULL_COVERAGE) {
    return { kind: 'partial', trust: within(BANDS.partial, (coverage - MIN_COVERAGE) / (FULL_COVERAGE - MIN_COVERAGE)) };
  }
  const quality = (Math.min(1, heading / STRONG.heading) + Math.min(1, best.proximity / STRONG.proximity) + agreement) / 3;
  const strong =
    coverage >= STRONG.coverage && heading >= STRONG.heading && best.proximity >= STRONG.proximity && backing >= STRONG.support;
  return strong
    ? { kind: 'answer', trust: within(BANDS.strong, (coverage - STRONG.coverage) / (1 - STRONG.coverage) / 2 + (heading + best.proximity) / 4) }
    : { kind: 'answer', trust: within(BANDS.checked, (coverage - FULL_COVERAGE) / (1 - FULL_COVERAGE) / 2 + quality / 2) };
}
