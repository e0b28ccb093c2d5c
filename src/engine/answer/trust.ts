/**
 * Whether the best passage answers the question, and how far to trust it:
 * from the quality of the evidence, not from word overlap alone. A passage
 * that holds the question's rare words, under a heading that names them, with
 * the words standing together as in the question, and backed by other
 * passages of its page, earns a high score; one that only mentions a word or
 * two in passing is declined.
 */
import type { Evidence } from './evidence.js';

export type Verdict =
  /** Nothing in the knowledge answers this: say so, cite nothing. */
  | { readonly kind: 'decline' }
  /** The best passage covers only part of the question: quote it, say it is partial. */
  | { readonly kind: 'partial'; readonly trust: number }
  | { readonly kind: 'answer'; readonly trust: number };

/** Below this weighted share of the question's words, no passage answers it. */
export const MIN_COVERAGE = 0.45;
/** A passage whose heading does not name the topic, nor holds the question's words together, needs this much. */
export const MIN_LOOSE_COVERAGE = 0.7;
/** From this share on, an answer is more than partial. */
export const FULL_COVERAGE = 0.75;
/** Found by meaning counts as this much coverage (with an embeddings provider). */
const MEANING_CREDIT = 0.25;

/**
 * Extractive answers quote, they do not reason, so they top out below 100:
 * the strongest evidence scores 90.
 */
export const EXTRACTIVE_CEILING = 90;
/** Partial answers stay below the "rely on it" range. */
export const PARTIAL_CEILING = 49;

export function judge(best: Evidence | undefined): Verdict {
  if (!best) return { kind: 'decline' };
  const coverage = Math.min(1, best.coverage + MEANING_CREDIT * best.meaning);
  const anchored = best.headingCoverage > 0 || best.proximity > 0 || best.meaning > 0;
  if (coverage < MIN_COVERAGE || (!anchored && coverage < MIN_LOOSE_COVERAGE)) return { kind: 'decline' };
  const agreement = Math.min(1, best.support / 2);
  const quality = 0.5 * coverage + 0.2 * best.headingCoverage + 0.15 * best.proximity + 0.15 * agreement;
  const trust = Math.max(1, Math.round(EXTRACTIVE_CEILING * quality));
  return coverage < FULL_COVERAGE ? { kind: 'partial', trust: Math.min(trust, PARTIAL_CEILING) } : { kind: 'answer', trust };
}
