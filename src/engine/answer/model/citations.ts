/**
 * The model's citations renumbered as they stream. The prompt numbers its
 * sources 1..n in a fixed order; the answer shows them numbered in the order
 * it first cites them ([3] first becomes [1]), so that `references` (the cited
 * sources, in citation order) and the numbers in the text agree. A number the
 * prompt never gave is dropped from the text, with the spaces before it (so that
 * "late [9]." reads "late.", not "late ."). The mapping only ever depends on
 * what came before, so the text handed out while streaming is the final text.
 * Code (fenced blocks and inline spans) is passed through untouched: `a[0]` is
 * not a citation.
 */
import { closesFence, openingFence, type Fence } from '../../text/fences.js';

/** A citation: `[1]`, `[1, 2]` or a range `[1-3]`; anything else in brackets is text. */
const CITATION = /^\[\s*\d{1,3}(?:\s*[-–]\s*\d{1,3})?(?:\s*,\s*\d{1,3}(?:\s*[-–]\s*\d{1,3})?)*\s*\]$/;
/** What an unfinished citation may hold after its `[`. */
const CITATION_PART = /^[\d, \-–]$/;
/** Longer than this, a bracket is text. */
const MAX_CITATION_CHARS = 24;

export class CitationRenumbering<T> {
  readonly #sources: readonly T[];
  /** The model's number (1-based) → the number shown. */
  readonly #shown = new Map<number, number>();
  /** An unfinished `[…` held back until it is known whether it cites. */
  #held = '';
  /** Spaces outside code, held back until it is known whether a dropped citation follows them. */
  #spaces = '';
  /** The current line so far, for fences. */
  #line = '';
  #fence: Fence | undefined;
  /** Length of the backtick run that opened the inline code span we are in (0: none). */
  #inline = 0;
  #ticks = 0;

  constructor(sources: readonly T[]) {
    this.#sources = sources;
  }

  /** The cited sources in the order shown. */
  get cited(): T[] {
    return [...this.#shown.keys()].map((number) => this.#sources[number - 1] as T);
  }

  /** The text to hand out for `delta`; an unfinished citation at its end is held back. */
  push(delta: string): string {
    let out = '';
    for (const char of delta) out += this.#take(char);
    return out;
  }

  /** What is still held back, once the stream has ended. */
  end(): string {
    const rest = this.#spaces + this.#held;
    this.#spaces = '';
    this.#held = '';
    return rest;
  }

  #take(char: string): string {
    this.#track(char);
    if (this.#held === '') return this.#plain(char);
    if (char === ']') return this.#cite(`${this.#held}]`);
    if (CITATION_PART.test(char) && this.#held.length < MAX_CITATION_CHARS) {
      this.#held += char;
      return '';
    }
    const text = this.#spaces + this.#held;
    this.#spaces = '';
    this.#held = '';
    return text + this.#plain(char);
  }

  #plain(char: string): string {
    if (this.#fence === undefined && this.#inline === 0) {
      if (char === ' ') {
        this.#spaces += char;
        return '';
      }
      if (char === '[') {
        this.#held = '[';
        return '';
      }
    }
    const text = this.#spaces + char;
    this.#spaces = '';
    return text;
  }

  /** Follows fences (line by line) and inline code spans (backtick runs). */
  #track(char: string): void {
    if (char === '`') {
      this.#ticks += 1;
    } else if (this.#ticks > 0) {
      const fenceLine = /^ {0,3}$/.test(this.#line.slice(0, -this.#ticks)) && this.#ticks >= 3;
      if (this.#fence === undefined && !fenceLine) {
        if (this.#inline === 0) this.#inline = this.#ticks;
        else if (this.#inline === this.#ticks) this.#inline = 0;
      }
      this.#ticks = 0;
    }
    if (char !== '\n') {
      this.#line += char;
      return;
    }
    const line = this.#line;
    this.#line = '';
    this.#inline = 0;
    if (this.#fence === undefined) this.#fence = openingFence(line);
    else if (closesFence(line, this.#fence, { strict: true })) this.#fence = undefined;
  }

  #cite(text: string): string {
    const spaces = this.#spaces;
    this.#spaces = '';
    this.#held = '';
    if (!CITATION.test(text)) return spaces + text;
    const numbers = [...new Set(citedNumbers(text))].filter((n) => n >= 1 && n <= this.#sources.length);
    if (numbers.length === 0) return '';
    const shown = numbers.map((n) => {
      const known = this.#shown.get(n);
      if (known !== undefined) return known;
      this.#shown.set(n, this.#shown.size + 1);
      return this.#shown.size;
    });
    return `${spaces}[${[...new Set(shown)].join(', ')}]`;
  }
}

/** The numbers a citation names, ranges spelled out (`[1-3]` names 1, 2 and 3; a backward range its ends). */
function citedNumbers(citation: string): number[] {
  return (citation.match(/\d+(?:\s*[-–]\s*\d+)?/g) ?? []).flatMap((part) => {
    const [from, to = from] = part.split(/\s*[-–]\s*/).map(Number) as [number, number?];
    if (to < from || to - from > 20) return [from, to];
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}
