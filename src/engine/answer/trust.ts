/**
 * How strongly the chosen passages support an answer: the share of the
 * question's words they contain, each word weighted by how rare it is in the
 * guru's knowledge (a rare word that is missing says more than a common one).
 */

/** BM25's inverse document frequency; always positive. */
export const inverseDocumentFrequency = (chunkCount: number, documentFrequency: number): number =>
  Math.log(1 + (chunkCount - documentFrequency + 0.5) / (documentFrequency + 0.5));

export interface Coverage {
  /** Weighted share of the question's words found in any chosen passage, 0-1. */
  readonly all: number;
  /** Weighted share found in the best passage alone, 0-1. */
  readonly best: number;
}

export function coverage(
  weights: ReadonlyMap<string, number>,
  presence: ReadonlyMap<string, ReadonlySet<number>>,
  chosen: readonly number[],
): Coverage {
  let total = 0;
  let inAny = 0;
  let inBest = 0;
  const best = chosen[0];
  for (const [term, weight] of weights) {
    total += weight;
    const holders = presence.get(term);
    if (!holders) continue;
    if (chosen.some((id) => holders.has(id))) inAny += weight;
    if (best !== undefined && holders.has(best)) inBest += weight;
  }
  return total === 0 ? { all: 0, best: 0 } : { all: inAny / total, best: inBest / total };
}

/** Below this share of the question's weight the passages do not answer it. */
export const MIN_COVERAGE = 0.4;

/**
 * Extractive answers quote, they do not reason, so they top out below 100:
 * full coverage by one passage scores 90.
 */
export const EXTRACTIVE_CEILING = 90;

export const trustScore = (c: Coverage): number =>
  c.all < MIN_COVERAGE ? 0 : Math.round(EXTRACTIVE_CEILING * (0.6 * c.best + 0.4 * c.all));
