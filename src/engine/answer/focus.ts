/**
 * Which passage of the chosen page to quote. The passage ranked best is the
 * one most about the question; the one that answers it is often another of
 * the same page: the section that shows the command a sentence introduces, or
 * that holds more of the question's words where the quote can show them.
 * Each close candidate of the page is judged by the quote it would give.
 */
import type { ChunkHit } from '../search/retriever.js';
import { openingFence } from '../text/fences.js';
import type { Evidence, KeyTerms } from './evidence.js';
import type { Passage } from './extractive.js';
import { isLeadIn, splitBlocks, type Block } from './markdown.js';
import { markedTerms } from './marks.js';

/** Passages of the same page scoring at least this share of the best one's score are weighed. */
const CLOSE_SCORE = 0.75;
/** At most this many passages of the page are weighed. */
const MAX_OPTIONS = 24;
/** For a question asking how to do something, a short command introduced by a sentence is worth this much coverage. */
const INTRODUCED_COMMAND_WEIGHT = 0.6;
/** Another passage is quoted only when its quote is worth this much more. */
const MARGIN = 0.1;

/** A question that asks how to do something: its answer is usually a command or a statement. */
const ASKS_HOW = /\b(?:how\s+(?:do|can|should|would|could|to)|what\s+(?:do|should|must)\s+(?:i|we|you)|(?:can|do)\s+i)\b/i;

export const asksHow = (question: string): boolean => ASKS_HOW.test(question);

/** Code of at most this many lines is a command or statement to type, not a listing to read. */
const COMMAND_LINES = 10;

/** A quote block holding a fenced block (`> ```sh`): code as a quoted page shows it. */
const quotesCode = (block: Block): boolean => block.text.split('\n').some((line) => openingFence(line.replace(/^>\s?/, '')) !== undefined);

const isCommand = (block: Block): boolean =>
  (block.kind === 'code' || (block.kind === 'quote' && quotesCode(block))) && block.text.split('\n').length <= COMMAND_LINES + 2;

/** Whether the quote shows a short command (code, or quoted code) right after the sentence that introduces it. */
export function showsIntroducedCommand(quote: string): boolean {
  const blocks = splitBlocks(quote);
  return blocks.some((block, n) => {
    const next = blocks[n + 1];
    return isLeadIn(block) && next !== undefined && isCommand(next);
  });
}

export interface FocusOption {
  readonly hit: ChunkHit;
  readonly passage: Passage;
}

/** What a quote is weighed against: the question's words, and those the page's title already names. */
export interface QuoteQuestion {
  readonly key: KeyTerms;
  readonly aliases: ReadonlyMap<string, string>;
  /** Question words the page title holds: every passage of the page is about them, so they tell none apart. */
  readonly inTitle: ReadonlySet<string>;
  readonly how: boolean;
}

/**
 * How well the quote of a passage answers: the weighted share of the question's words beyond the
 * page's title that it shows, and, for a question asking how, whether it shows an introduced command.
 */
export function quoteWorth(quote: string, question: QuoteQuestion): number {
  const shown = markedTerms(quote, question.key.terms, question.aliases);
  let held = 0;
  let total = 0;
  for (const [term, weight] of question.key.weights) {
    if (question.inTitle.has(term)) continue;
    total += weight;
    if (shown.has(term)) held += weight;
  }
  const coverage = total === 0 ? 0 : held / total;
  return coverage + (question.how && showsIntroducedCommand(quote) ? INTRODUCED_COMMAND_WEIGHT : 0);
}

/** The candidates of the best passage's page close enough to it to be quoted instead, best first. */
export function samePageOptions(best: Evidence, evidence: readonly Evidence[]): ChunkHit[] {
  return evidence
    .filter((item) => item.hit.sourceId === best.hit.sourceId && item.score >= best.score * CLOSE_SCORE)
    .slice(0, MAX_OPTIONS)
    .map((item) => item.hit);
}

/** The option whose quote answers best; the first (best ranked) unless another is clearly better. */
export function chooseFocus(options: readonly FocusOption[], worth: (option: FocusOption) => number): FocusOption | undefined {
  let chosen = options[0];
  if (chosen === undefined) return undefined;
  let chosenWorth = worth(chosen);
  for (const option of options.slice(1)) {
    const value = worth(option);
    if (value > chosenWorth + MARGIN) {
      chosen = option;
      chosenWorth = value;
    }
  }
  return chosen;
}
