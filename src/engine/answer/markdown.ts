/**
 * The Markdown structure an extractive answer quotes from: blocks separated by
 * blank lines, fenced code kept whole, and fences as CommonMark reads them, so
 * that every quoted code block opens and closes where a renderer expects.
 */
import { closesFence, openingFence, type Fence } from '../text/fences.js';

export type BlockKind = 'code' | 'list' | 'table' | 'quote' | 'prose';

export interface Block {
  readonly kind: BlockKind;
  readonly text: string;
}

const LIST_ITEM = /^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s/;

function kindOf(text: string): BlockKind {
  const first = text.split('\n', 1)[0] ?? '';
  if (openingFence(first) || /^ {4}/.test(first)) return 'code';
  if (LIST_ITEM.test(first)) return 'list';
  if (first.trimStart().startsWith('|')) return 'table';
  if (first.trimStart().startsWith('>')) return 'quote';
  return 'prose';
}

/** A line a list item goes on with after a blank line: indented under the item's text. */
const ITEM_CONTINUATION = /^ {2,}\S/;

/**
 * Whether the blank line at `blank` is inside the list that `block` holds: the next line that is
 * not blank goes on with an item (paragraphs, code and rows of a table written as a list), or is
 * the next item.
 */
function continuesList(block: readonly string[], lines: readonly string[], blank: number): boolean {
  if (!LIST_ITEM.test(block[0] ?? '')) return false;
  let next = blank + 1;
  while (next < lines.length && (lines[next] ?? '').trim() === '') next++;
  const line = lines[next];
  return line !== undefined && (ITEM_CONTINUATION.test(line) || LIST_ITEM.test(line));
}

/** Splits Markdown into blank-line separated blocks, never inside a fenced code block or a list item. */
export function splitBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let current: string[] = [];
  let fence: Fence | undefined;
  const flush = () => {
    if (current.some((line) => line.trim() !== '')) {
      const joined = current.join('\n').replace(/^\n+|\s+$/g, '');
      blocks.push({ kind: kindOf(joined), text: joined });
    }
    current = [];
  };
  const lines = text.split('\n');
  for (const [at, line] of lines.entries()) {
    if (fence !== undefined) {
      current.push(line);
      if (closesFence(line, fence)) {
        fence = undefined;
        flush();
      }
      continue;
    }
    const opener = openingFence(line);
    if (opener !== undefined) {
      flush();
      fence = opener;
      current.push(line);
      continue;
    }
    if (line.trim() !== '') current.push(line);
    else if (continuesList(current, lines, at)) current.push('');
    else flush();
  }
  flush();
  return blocks.map((block) => (block.kind === 'code' ? { kind: 'code', text: normalizeFence(block.text) } : block));
}

/**
 * A fenced block written the way every renderer reads it: the fence at the
 * margin, closed by the same marker (an indented or missing closing fence
 * would leave the rest of the answer inside the code).
 */
export function normalizeFence(text: string): string {
  const lines = text.split('\n');
  const opener = openingFence(lines[0] ?? '');
  if (opener === undefined) return text;
  const last = lines.length > 1 ? (lines[lines.length - 1] ?? '') : '';
  const closed = lines.length > 1 && closesFence(last, opener);
  const body = lines.slice(1, closed ? -1 : undefined);
  const longestRun = Math.max(0, ...body.map((line) => (line.match(opener.char === '`' ? /`+/g : /~+/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0)));
  const marker = opener.char.repeat(Math.max(3, opener.length, longestRun + 1));
  return [`${marker}${opener.info}`, ...body, marker].join('\n');
}

/** Closes a fence that the text leaves open (as a renderer reads it), so that what follows it is not swallowed. */
export function closeOpenFence(text: string): string {
  let fence: Fence | undefined;
  for (const line of text.split('\n')) {
    if (fence === undefined) fence = openingFence(line);
    else if (closesFence(line, fence, { strict: true })) fence = undefined;
  }
  return fence === undefined ? text : `${text.replace(/\n*$/, '')}\n${fence.char.repeat(fence.length)}\n`;
}

/** Whether the text is one fenced code block: its first line opens a fence that its last line closes. */
export function isFencedBlock(text: string): boolean {
  const lines = text.split('\n');
  const fence = openingFence(lines[0] ?? '');
  return fence !== undefined && lines.length >= 2 && closesFence(lines.at(-1) ?? '', fence);
}

/** A prose block that ends with a colon announces the block after it ("To do X, run:"). */
export const isLeadIn = (block: Block): boolean => block.kind === 'prose' && /:\s*$/.test(block.text);

/** Words a reader reads: link targets and markup are not words. */
export const wordCount = (text: string): number => (text.replace(/\]\([^)]*\)/g, ']').match(/[\p{L}\p{N}]+/gu) ?? []).length;
