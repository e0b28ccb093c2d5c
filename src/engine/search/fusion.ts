/** Reciprocal-rank fusion: merges ranked lists, best first, by 1/(k + rank) summed over the lists. */
const RRF_K = 60;

export function fuseRanked<T>(lists: readonly (readonly T[])[], key: (item: T) => number): T[] {
  const scores = new Map<number, { item: T; score: number }>();
  for (const list of lists) {
    list.forEach((item, rank) => {
      const id = key(item);
      const entry = scores.get(id) ?? { item, score: 0 };
      entry.score += 1 / (RRF_K + rank + 1);
      scores.set(id, entry);
    });
  }
  return [...scores.values()].sort((a, b) => b.score - a.score).map((entry) => entry.item);
}
