/**
 * Builds an answer without a language model: the most relevant blocks of the
 * chosen passages, quoted under the page and heading they come from, each
 * citing its numbered reference. Code blocks are quoted whole or not at all.
 */
import type { Reference } from '../../core/schemas.js';
import { MARK_CLOSE, MARK_OPEN } from '../search/retriever.js';
import { HEADING_SEPARATOR } from '../store/chunks.js';

const MARKED_WORD = new RegExp(`${MARK_OPEN}([^${MARK_CLOSE}]*)${MARK_CLOSE}`, 'g');
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/** A chosen passage: its source and its body with matched words marked. */
export interface Passage {
  readonly sourceId: number;
  readonly title: string;
  readonly headings: string;
  readonly url: string | null;
  readonly marked: string;
}

interface Block {
  readonly text: string;
  readonly index: number;
  readonly distinctMatches: number;
  readonly matches: number;
}

/** Splits text into blank-line separated blocks, never inside a fenced code block. */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    if (current.some((line) => line.trim() !== '')) blocks.push(current.join('\n').trim());
    current = [];
  };
  for (const line of text.split('\n')) {
    const opener = FENCE.exec(line)?.[1];
    if (fence === undefined && opener !== undefined) {
      flush();
      fence = opener;
      current.push(line);
      continue;
    }
    if (fence !== undefined) {
      current.push(line);
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length && line.trim() === opener) {
        fence = undefined;
        flush();
      }
      continue;
    }
    if (line.trim() === '') flush();
    else current.push(line);
  }
  flush();
  return blocks;
}

function scoreBlock(text: string, index: number): Block {
  const words = [...text.matchAll(MARKED_WORD)].map((m) => (m[1] ?? '').toLowerCase());
  return { text, index, distinctMatches: new Set(words).size, matches: words.length };
}

const unmark = (text: string): string => text.replaceAll(MARK_OPEN, '').replaceAll(MARK_CLOSE, '');

const MAX_BLOCK_CHARS = 900;

/** Shortens a long prose block to the sentences around its matches. */
function trimProse(text: string): string {
  if (text.length <= MAX_BLOCK_CHARS || FENCE.test(text)) return text;
  const sentences = text.split(/(?<=[.!?])\s+/);
  const ranked = sentences
    .map((sentence, index) => ({ index, score: scoreBlock(sentence, index) }))
    .sort((a, b) => b.score.distinctMatches - a.score.distinctMatches || b.score.matches - a.score.matches || a.index - b.index);
  const keep = new Set<number>();
  let length = 0;
  for (const { index } of ranked) {
    const sentence = sentences[index] ?? '';
    if (length + sentence.length > MAX_BLOCK_CHARS && keep.size > 0) break;
    keep.add(index);
    length += sentence.length;
  }
  const ordered = [...keep].sort((a, b) => a - b);
  return ordered
    .map((index, i) => (i > 0 && index !== (ordered[i - 1] ?? -2) + 1 ? '… ' : '') + sentences[index])
    .join(' ');
}

/** The blocks of a passage worth quoting, in their original order. */
export function quoteBlocks(marked: string, maxBlocks = 2): string[] {
  const blocks = splitBlocks(marked).map(scoreBlock);
  const matching = blocks.filter((block) => block.matches > 0);
  const chosen = (matching.length > 0 ? matching : blocks.slice(0, 1))
    .sort((a, b) => b.distinctMatches - a.distinctMatches || b.matches - a.matches || a.index - b.index)
    .slice(0, maxBlocks)
    .sort((a, b) => a.index - b.index);
  return chosen.map((block) => unmark(trimProse(block.text)));
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

/** Quotes the passages, citing one numbered reference per source. */
export function composeExtractive(passages: readonly Passage[], partial: boolean): ExtractiveAnswer {
  const references: Reference[] = [];
  const numberOf = new Map<number, number>();
  const sections: string[] = [];
  for (const passage of passages) {
    let number = numberOf.get(passage.sourceId);
    if (number === undefined) {
      references.push({ link: passage.url ?? '', icon: faviconOf(passage.url), title: passage.title });
      number = references.length;
      numberOf.set(passage.sourceId, number);
    }
    const place = [passage.title, passage.headings].filter((part) => part !== '').join(HEADING_SEPARATOR);
    sections.push(`From **${place}** [${number}]:\n\n${quoteBlocks(passage.marked).join('\n\n')}`);
  }
  const lead = partial
    ? 'The knowledge base covers this only in part. These are the closest passages:'
    : 'Here is what the knowledge base says:';
  return { content: `${lead}\n\n${sections.join('\n\n')}\n`, references };
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
