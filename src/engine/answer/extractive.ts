/**
 * Builds an answer without a language model: a short window of the best
 * passage, around the blocks densest in the question's key words, quoted under
 * the page and heading it comes from and citing its numbered reference. A
 * sentence that introduces a block ("To build it, run:") is quoted with that
 * block, code is quoted whole (a long listing by its lines that hold the
 * question's words), and every fence is closed.
 */
import type { Reference } from '../../core/schemas.js';
import { MARK_CLOSE, MARK_OPEN } from '../search/retriever.js';
import { HEADING_SEPARATOR } from '../store/chunks.js';
import { withoutRelativeLinks } from '../text/links.js';
import { unquote } from '../text/quotes.js';
import { closeOpenFence, isFencedBlock, isLeadIn, splitBlocks, wordCount, type Block } from './markdown.js';
import { markedTerms, unmark } from './marks.js';

const MARKED_WORD = new RegExp(`${MARK_OPEN}([^${MARK_CLOSE}]*)${MARK_CLOSE}`, 'g');

/** A chosen passage: the chunk found, with the chunks around it in the same section, matched words marked. */
export interface Passage {
  readonly sourceId: number;
  readonly title: string;
  readonly headings: string;
  readonly url: string | null;
  /** The chunk before the found one in the same section, marked ('' when none). */
  readonly before: string;
  readonly marked: string;
  /** The chunk after the found one in the same section, marked ('' when none). */
  readonly after: string;
}

/** How many words a quote may take: the first passage, and any further one. */
export const WORD_BUDGET = { first: 140, further: 80 } as const;
/** A code block longer than this is quoted only when it holds the question's words; a lead-in to it is left out instead. */
const MAX_ATTACHED_CODE_LINES = 30;
/** Code, lists and tables that hold the question's words usually are the answer: they weigh this much more. */
const STRUCTURED_BONUS = 1.25;
/** Prose is never shortened below this many words. */
const MIN_TRIMMED_WORDS = 40;
/** A quote shorter than this share of its budget is given the blocks around it. */
const MIN_QUOTE_SHARE = 0.5;

interface Scored extends Block {
  readonly index: number;
  readonly focus: boolean;
  readonly terms: ReadonlySet<string>;
  readonly weight: number;
}

function scoreBlocks(passage: Passage, weights: ReadonlyMap<string, number>): Scored[] {
  const parts = [
    { text: passage.before, focus: false },
    { text: passage.marked, focus: true },
    { text: passage.after, focus: false },
  ];
  const blocks: Scored[] = [];
  for (const part of parts) {
    for (const block of splitBlocks(part.text)) {
      const terms = markedTerms(block.text, [...weights.keys()]);
      let weight = 0;
      for (const term of terms) weight += weights.get(term) ?? 0;
      if (block.kind !== 'prose') weight *= STRUCTURED_BONUS;
      blocks.push({ ...block, index: blocks.length, focus: part.focus, terms, weight });
    }
  }
  return blocks;
}

/** Shortens a long prose block to its sentences that hold question words, keeping a closing lead-in. */
function trimProse(block: Scored, maxWords: number, keepLast: boolean): string {
  if (block.kind !== 'prose' || wordCount(block.text) <= maxWords) return block.text;
  const sentences = block.text.split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}[`*_"(\uE000])/u);
  const marks = sentences.map((sentence) => [...sentence.matchAll(MARKED_WORD)].length);
  const order = sentences.map((_, i) => i).sort((a, b) => (marks[b] ?? 0) - (marks[a] ?? 0) || a - b);
  const keep = new Set<number>(keepLast ? [sentences.length - 1] : []);
  let words = keepLast ? wordCount(sentences.at(-1) ?? '') : 0;
  for (const i of order) {
    const sentenceWords = wordCount(sentences[i] ?? '');
    if (keep.has(i)) continue;
    if (keep.size > 0 && (words + sentenceWords > maxWords || (marks[i] ?? 0) === 0)) break;
    keep.add(i);
    words += sentenceWords;
  }
  const kept = [...keep].sort((a, b) => a - b);
  return kept.map((i, n) => (n > 0 && i !== (kept[n - 1] ?? -2) + 1 ? '… ' : '') + sentences[i]).join(' ');
}

const tooLong = (block: Block): boolean => block.kind === 'code' && block.text.split('\n').length > MAX_ATTACHED_CODE_LINES;

/**
 * The blocks to quote: the focus block with the most key-word weight, the
 * block its lead-in announces (or the lead-in of a code block), then the
 * neighbours that add question words the quote lacks, within the budget.
 */
export function selectBlocks(passage: Passage, weights: ReadonlyMap<string, number>, budget: number): string[] {
  return markedQuote(passage, weights, budget).map(unmark);
}

/** The blocks selectBlocks quotes, with the question's words still marked. */
export function markedQuote(passage: Passage, weights: ReadonlyMap<string, number>, budget: number): string[] {
  const blocks = scoreBlocks(passage, weights);
  const focus = blocks.filter((block) => block.focus);
  const anchor = [...focus].sort((a, b) => b.weight - a.weight || a.index - b.index)[0];
  if (!anchor) return [];
  const chosen = new Set([anchor.index]);
  const attach = (index: number): void => {
    const block = blocks[index];
    if (!block) return;
    // A lead-in comes with what it announces; code is preceded by the sentence that introduces it.
    const next = blocks[index + 1];
    if (isLeadIn(block) && next && !chosen.has(next.index) && !tooLong(next)) chosen.add(next.index);
    const previous = blocks[index - 1];
    if (block.kind !== 'prose' && previous && isLeadIn(previous)) chosen.add(previous.index);
  };
  attach(anchor.index);

  const covered = new Set(anchor.terms);
  // What a block adds to the quote: prose can be shortened to a few sentences; code cannot, and
  // lists and tables are counted whole (they are shortened to their matching items only at the end).
  const cost = (block: Scored) => (block.kind === 'prose' ? Math.min(wordCount(block.text), MIN_TRIMMED_WORDS) : wordCount(block.text));
  const words = () => [...chosen].reduce((sum, i) => sum + wordCount(blocks[i]?.text ?? ''), 0);
  for (;;) {
    const low = Math.min(...chosen);
    const high = Math.max(...chosen);
    const options = [blocks[low - 1], blocks[high + 1]].filter((block): block is Scored => block !== undefined);
    const gain = (block: Scored) => [...block.terms].filter((term) => !covered.has(term)).reduce((sum, term) => sum + (weights.get(term) ?? 0), 0);
    const best = options.filter((block) => gain(block) > 0).sort((a, b) => gain(b) - gain(a))[0];
    if (!best || words() + cost(best) > budget) break;
    chosen.add(best.index);
    attach(best.index);
    for (const term of best.terms) covered.add(term);
  }
  // A quote too short to read on its own takes in what follows it (else what precedes it) in its section.
  while (words() < budget * MIN_QUOTE_SHARE) {
    const fits = (block: Scored | undefined) => block !== undefined && words() + cost(block) <= budget && !tooLong(block);
    const next = [blocks[Math.max(...chosen) + 1], blocks[Math.min(...chosen) - 1]].find(fits);
    if (!next) break;
    chosen.add(next.index);
    attach(next.index);
  }

  // A lead-in whose block did not come along is dropped rather than left hanging, unless it is all
  // there is to quote: then its block comes along, however long. Read from the end, so that a
  // lead-in introducing a dropped lead-in goes too.
  const ordered = [...chosen].sort((a, b) => a - b).flatMap((i) => blocks[i] ?? []);
  const complete: Scored[] = [];
  for (const block of ordered.reverse()) if (!isLeadIn(block) || complete[0]?.index === block.index + 1) complete.unshift(block);
  const kept = complete.length > 0 ? complete : [anchor, ...(blocks[anchor.index + 1] ? [blocks[anchor.index + 1] as Scored] : [])];
  const shortenable = kept.filter((block) => block.kind !== 'code');
  const room = Math.max(MIN_TRIMMED_WORDS, budget - kept.filter((b) => b.kind === 'code').reduce((sum, b) => sum + wordCount(b.text), 0));
  const each = Math.max(MIN_TRIMMED_WORDS, Math.floor(room / Math.max(1, shortenable.length)));
  return kept.map((block, n) =>
    block.kind === 'prose' ? trimProse(block, each, isLeadIn(block) && kept[n + 1] !== undefined) : block.kind === 'code' ? trimCode(block) : trimRows(block, each),
  );
}

/** Lines of a long code block that are quoted: those holding question words (else the first ones). */
const QUOTED_CODE_LINES = 12;

/**
 * Shortens a fenced code block longer than MAX_ATTACHED_CODE_LINES to its lines holding question
 * words, in order, within its fences; `...` stands for what was left out. A listing of a hundred
 * commands answers nothing that its matching lines do not.
 */
function trimCode(block: Scored): string {
  const lines = block.text.split('\n');
  if (!tooLong(block) || !isFencedBlock(block.text)) return block.text;
  const body = lines.slice(1, -1);
  const marked = body.map((line, i) => (line.includes(MARK_OPEN) ? i : -1)).filter((i) => i >= 0);
  const keep = (marked.length > 0 ? marked : body.map((_, i) => i)).slice(0, QUOTED_CODE_LINES);
  const quoted: string[] = [];
  keep.forEach((i, n) => {
    if (i !== (n === 0 ? 0 : (keep[n - 1] ?? 0) + 1)) quoted.push('...');
    quoted.push(body[i] ?? '');
  });
  if ((keep.at(-1) ?? 0) < body.length - 1) quoted.push('...');
  return [lines[0], ...quoted, lines.at(-1)].join('\n');
}

/**
 * Shortens a long list or table (also one in a quote, as pages indent them) to its items or rows
 * that hold question words (a table keeps its header), in order, marking what was left out.
 */
function trimRows(block: Scored, maxWords: number): string {
  if (wordCount(block.text) <= maxWords) return block.text;
  if (block.kind === 'list' || block.kind === 'table') return keptRows(block.kind, block.text.split('\n'), maxWords).join('\n');
  if (block.kind !== 'quote') return block.text;
  const inner = block.text.split('\n').map(unquote);
  if (!LIST_MARKER.test(inner[0] ?? '')) return block.text;
  return keptRows('list', inner, maxWords)
    .join('\n')
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

function keptRows(kind: 'list' | 'table', lines: readonly string[], maxWords: number): string[] {
  const header = kind === 'table' ? lines.slice(0, 2) : [];
  const rows = kind === 'table' ? lines.slice(2) : listItems(lines);
  const anyMarked = rows.some((row) => row.includes(MARK_OPEN));
  const kept: string[] = [];
  let words = wordCount(header.join(' '));
  for (const row of rows) {
    if (anyMarked && !row.includes(MARK_OPEN)) continue;
    const rowWords = wordCount(row);
    if (kept.length > 0 && words + rowWords > maxWords) break;
    kept.push(row);
    words += rowWords;
  }
  const omitted = kept.length < rows.length ? (kind === 'table' ? [] : ['- …']) : [];
  return [...header, ...kept, ...omitted];
}

const LIST_MARKER = /^(\s*)(?:[-*+]|\d{1,9}[.)])\s/;

/** A list's items, each with its continuation lines. */
function listItems(lines: readonly string[]): string[] {
  const indent = LIST_MARKER.exec(lines[0] ?? '')?.[1]?.length ?? 0;
  const items: string[] = [];
  for (const line of lines) {
    const marker = LIST_MARKER.exec(line);
    if (marker && (marker[1]?.length ?? 0) <= indent) items.push(line);
    else if (items.length > 0) items[items.length - 1] += `\n${line}`;
    else items.push(line);
  }
  return items;
}

export const faviconOf = (url: string | null): string => {
  if (url === null) return '';
  try {
    return new URL('/favicon.ico', url).href;
  } catch {
    return '';
  }
};

export interface ExtractiveAnswer {
  readonly content: string;
  readonly references: Reference[];
}

/**
 * Quotes the passages, citing one numbered reference per source. `gap`: the question's words
 * nothing in the knowledge base was found for; the answer opens by saying it covers the question in part.
 */
export function composeExtractive(passages: readonly Passage[], weights: ReadonlyMap<string, number>, gap: readonly string[] = []): ExtractiveAnswer {
  const references: Reference[] = [];
  const numberOf = new Map<number, number>();
  const sections: string[] = [];
  const quoted = new Set<string>();
  passages.forEach((passage, i) => {
    const blocks = selectBlocks(passage, weights, i === 0 ? WORD_BUDGET.first : WORD_BUDGET.further).map((block) =>
      isFencedBlock(block) ? block : withoutRelativeLinks(block),
    );
    // Documentation often repeats a passage on two pages: quote it once.
    if (blocks.length === 0 || blocks.some((block) => quoted.has(block))) return;
    for (const block of blocks) quoted.add(block);
    let number = numberOf.get(passage.sourceId);
    if (number === undefined) {
      references.push({ link: passage.url ?? '', icon: faviconOf(passage.url), title: passage.title });
      number = references.length;
      numberOf.set(passage.sourceId, number);
    }
    const place = [passage.title, passage.headings].filter((part) => part !== '').join(HEADING_SEPARATOR);
    sections.push(closeOpenFence(`From **${place}** [${number}]:\n\n${blocks.join('\n\n')}`));
  });
  const closest = sections.length > 1 ? 'These are the closest passages' : 'This is the closest passage';
  const missing = gap.map((term) => `“${term}”`).join(', ');
  const lead = gap.length > 0 ? `The knowledge base covers this only in part: none of the passages found mention ${missing}. ${closest}:\n\n` : '';
  return { content: `${lead}${sections.join('\n\n')}\n`, references };
}

export function noAnswer(guruName: string): ExtractiveAnswer {
  return {
    content:
      `I could not find anything about this in the knowledge base of **${guruName}**, so I won't guess. ` +
      'Add sources that cover it, or ask with other words.\n',
    references: [],
  };
}

/** The answer text in pieces, a line at a time, as it is streamed to callers. */
export function* textPieces(content: string): Generator<string> {
  let start = 0;
  while (start < content.length) {
    const end = content.indexOf('\n', start);
    const stop = end === -1 ? content.length : end + 1;
    yield content.slice(start, stop);
    start = stop;
  }
}
