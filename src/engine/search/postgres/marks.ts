/**
 * Matched words marked in a text as FTS5's highlight() marks them: each matched token wrapped in
 * MARK_OPEN … MARK_CLOSE on its own (the words between two marked tokens are not), the rest of
 * the text as it is. Where the tokens lie comes from the postings' spans (./tokenizer.ts).
 */
import { MARK_CLOSE, MARK_OPEN } from '../retriever.js';

/** The text with the tokens at these [start, end) spans marked (spans in any order; the same span twice is marked once). */
export function marked(text: string, spans: readonly (readonly [number, number])[]): string {
  if (spans.length === 0) return text;
  const ordered = [...spans].sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end] of ordered) {
    if (start < at) continue;
    out += `${text.slice(at, start)}${MARK_OPEN}${text.slice(start, end)}${MARK_CLOSE}`;
    at = end;
  }
  return out + text.slice(at);
}

/** A chunk posting's flattened (column, start, end) triples, by column. */
export function spansByColumn(flat: readonly number[], into: [number, number][][]): void {
  for (let i = 0; i + 2 < flat.length; i += 3) into[flat[i]!]?.push([flat[i + 1]!, flat[i + 2]!]);
}

/** A link posting's flattened (start, end) pairs. */
export function spanPairs(flat: readonly number[], into: [number, number][]): void {
  for (let i = 0; i + 1 < flat.length; i += 2) into.push([flat[i]!, flat[i + 1]!]);
}
