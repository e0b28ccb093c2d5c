/**
 * Whether the best passage answers the question, and how far to trust the answer.
 *
 * - Declined (trust 0): the knowledge holds nothing about the question's
 *   subject: the question is made of words it never or barely uses and no one
 *   passage holds them all (a question asked in words it uses throughout is
 *   never declined), words it never uses make up much of the question, or no
 *   candidate page holds enough of the question's key words across its
 *   passages (weighted by rarity), or only words scattered over a page about
 *   something else (judge below).
 * - Otherwise the trust score is the estimated chance, in percent, that the
 *   answer holds what the question needs (trustScore below): at most 49 when
 *   a word of the question is found in no candidate (the answer says it covers
 *   the question in part), 69 unless the evidence is strong, and 90 in all:
 *   extractive answers quote, they do not reason.
 */
import type { Evidence, KeyTerms } from './evidence.js';

export type Verdict =
  /** Nothing in the knowledge answers this: say so, cite nothing. */
  | { readonly kind: 'decline' }
  /**
   * Part of the question is found nowhere: `gap` holds its words that no candidate passage holds.
   * Quote the best passage, and say which part is missing.
   */
  | { readonly kind: 'partial'; readonly gap: readonly string[] }
  /** `strong`: every sign of a passage about the question is there, so one page is quoted, not two. */
  | { readonly kind: 'answer'; readonly strong: boolean };

/**
 * Words the knowledge never uses weighing more than this share of the question: its subject is not
 * in the knowledge ("What is the best pizza topping?" asked of a web framework's manual). Counted
 * in a large knowledge base only (KeyTerms.unseenSays): a few pages miss most words.
 */
export const MAX_UNSEEN_SHARE = 0.4;
/**
 * Below this weighted share of the question's words held by one page's candidate passages
 * together, no page is about the question's subject.
 */
export const MIN_PAGE_COVERAGE = 0.5;
/**
 * A page that neither names the question's words (title, heading, other pages' links) nor holds two
 * of them together needs this much, and two of them in one of its passages: the words it holds may
 * be incidental, scattered over a page about something else.
 */
export const MIN_LOOSE_PAGE_COVERAGE = 0.7;
/**
 * A title, heading, anchor text or pair of words standing together anchors a page to the question
 * only when it holds this share of the question's weight: a word nearly every passage uses (the
 * product's name in an Apache manual) anchors nothing.
 */
export const MIN_ANCHOR = 0.05;

/**
 * A question whose words average at most this rarity (KeyTerms.rarity) is asked in the knowledge's
 * own vocabulary: its subject is there, though no one page may hold the question's rarer, everyday
 * words ("How do I spread visitors across three identical app servers?" asked of a web server's
 * manual that says "load balancing"). It is answered, never declined. Chosen over the nine QA sets
 * together: the highest value that declines every off-topic question declined without it
 * (bench/experiments/declines/NOTES.md).
 */
export const ORDINARY_VOCABULARY = 0.45;
/**
 * A question whose words average at least this rarity is about something the knowledge at most
 * mentions in passing, whichever page holds a few of them ("Which songs made the jazz guitarist
 * Django Reinhardt famous?" asked of Django's manual), unless one passage holds every one of them
 * (holdsWholeQuestion): then the knowledge says just that, in words it uses nowhere else ("What is
 * the default wibble level?" in a guru where one page of sixty names the wibble level). Chosen like
 * ORDINARY_VOCABULARY: above every on-topic question of the nine QA sets that was answered.
 */
export const FOREIGN_VOCABULARY = 0.65;

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

/** The weighted share of the question's words the terms hold. */
function weightOf(key: KeyTerms, terms: Iterable<string>): number {
  let held = 0;
  for (const term of terms) held += key.weights.get(term) ?? 0;
  return key.total === 0 ? 0 : held / key.total;
}

/** What one page's candidate passages hold of the question together. */
interface PageEvidence {
  readonly held: Set<string>;
  /** A passage's title, heading, anchor texts or words standing together name the question (MIN_ANCHOR). */
  anchored: boolean;
  /** A passage holds two of the question's words (or its one word). */
  together: boolean;
}

/**
 * Each candidate page's passages taken together: a page answers with several sections (the one
 * naming the topic, the one showing the command), so no one passage need hold every word.
 */
function pages(evidence: readonly Evidence[], key: KeyTerms): PageEvidence[] {
  const bySource = new Map<number, PageEvidence>();
  for (const item of evidence) {
    let page = bySource.get(item.hit.sourceId);
    if (page === undefined) {
      page = { held: new Set(), anchored: false, together: false };
      bySource.set(item.hit.sourceId, page);
    }
    const missing = new Set(item.missing);
    const held = key.terms.filter((term) => !missing.has(term));
    for (const term of held) page.held.add(term);
    page.anchored ||= Math.max(item.titleCoverage, item.headingCoverage, item.anchorCoverage, item.proximity) >= MIN_ANCHOR;
    page.together ||= new Set(held).size >= Math.min(2, new Set(key.terms).size);
  }
  return [...bySource.values()];
}

/** Whether a passage holds every word of the question itself (not a synonym standing for one). */
const holdsWholeQuestion = (item: Evidence): boolean => item.missing.length === 0 && item.coverage >= 1 - 1e-9;

/**
 * Whether to answer, from the candidates ranked best first. The question's vocabulary decides first:
 * asked in words the knowledge uses throughout, it is answered; made of words it never or barely
 * uses, declined, unless one passage holds them all. Between the two, declined when the knowledge
 * holds nothing about the question's subject: the words it never uses make up much of the
 * question, or no candidate page holds enough of the question's words (weighted by rarity) across
 * its passages.
 * Which passage holds them does not matter here, nor whether the best one lacks a word: the
 * answer quotes the best, and a decline needs a page about the subject to be missing. An answer is
 * partial only when there is evidence of a gap: a question word no candidate holds. Passages found
 * by meaning (with an embeddings provider) count like the others only by the words they hold: vector
 * search always returns something, so it cannot stand in for the question's words.
 */
export function judge(evidence: readonly Evidence[], key: KeyTerms): Verdict {
  const [best] = evidence;
  if (!best || key.total === 0) return { kind: 'decline' };
  if (key.rarity >= FOREIGN_VOCABULARY && !evidence.some(holdsWholeQuestion)) return { kind: 'decline' };
  const ordinary = key.rarity <= ORDINARY_VOCABULARY;
  if (!ordinary && key.unseenSays * weightOf(key, key.unseen) > MAX_UNSEEN_SHARE) return { kind: 'decline' };
  const about = pages(evidence, key).some((page) => {
    const held = weightOf(key, page.held);
    return held >= MIN_PAGE_COVERAGE && ((held >= MIN_LOOSE_PAGE_COVERAGE && page.together) || page.anchored);
  });
  if (!about && !ordinary) return { kind: 'decline' };
  const found = new Set(evidence.flatMap((item) => key.terms.filter((term) => !item.missing.includes(term))));
  const gap = key.terms.filter((term) => !found.has(term));
  if (gap.length > 0) return { kind: 'partial', gap };
  const coverage = best.coverage;
  const heading = Math.max(best.titleCoverage, best.headingCoverage);
  const backing = best.support + (best.meaning > 0 ? 1 : 0);
  // Answered for its vocabulary alone, no page is shown to be about the question: never strong.
  const strong =
    about &&
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
