/**
 * Structure-aware chunking of Markdown (plain text is Markdown without markup).
 *
 * The document is read once, line by line, into blocks (paragraphs, lists, tables, blockquotes,
 * code) tagged with the heading path in effect. Consecutive blocks of one section are packed into
 * chunks of about `targetChars`; a heading always starts a new chunk. Only blocks longer than
 * `maxChars` are split, at their natural units (list items, table rows, sentences); fenced code is
 * never split. All matching is done with anchored, linear patterns or plain scans, so the work is
 * linear in the input size.
 */
import { closesFence, indentOf, openingFence, type Fence } from '../text/fences.js';
import { linkTexts } from '../text/links.js';
import { unquote } from '../text/quotes.js';

export interface Chunk {
  /** 0-based order of the chunk within its document. */
  readonly position: number;
  /** Heading path in effect for the chunk, outermost first. */
  readonly headings: readonly string[];
  readonly body: string;
}

export interface ChunkOptions {
  readonly targetChars?: number;
  readonly maxChars?: number;
  /** The document's title, kept beside every chunk: an outermost heading that repeats it is left out of the paths. */
  readonly title?: string;
}

export const DEFAULT_TARGET_CHARS = 1200;
export const DEFAULT_MAX_CHARS = 2400;

type BlockKind = 'paragraph' | 'list' | 'table' | 'quote' | 'code';

interface Block {
  readonly kind: BlockKind;
  /** Natural split units: list items, table rows (header first), quote lines; one unit otherwise. */
  readonly units: readonly string[];
  readonly text: string;
}

interface Section {
  readonly headings: readonly string[];
  readonly blocks: Block[];
}

interface Limits {
  readonly target: number;
  readonly max: number;
}

export function chunkMarkdown(markdown: string, options: ChunkOptions = {}): Chunk[] {
  const limits = resolveLimits(options);
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const chunks: Chunk[] = [];
  const title = wordsOf(options.title ?? '');
  for (const section of parseSections(lines)) {
    const [outermost, ...inner] = section.headings;
    const headings = outermost !== undefined && repeatsTitle(outermost, title) ? inner : section.headings;
    for (const body of packSection(section.blocks, limits)) {
      chunks.push({ position: chunks.length, headings, body });
    }
  }
  return chunks;
}

/**
 * Whether a heading says what the title does: the same words, or the words the title begins with
 * (a title is often the page's heading followed by the site's name: "csv — CSV File Reading and
 * Writing — Python 3.11 documentation"). Case, spacing and punctuation (Markdown markup included)
 * do not count.
 */
function repeatsTitle(heading: string, title: readonly string[]): boolean {
  const words = wordsOf(heading);
  return words.length > 0 && words.length <= title.length && words.every((word, i) => word === title[i]);
}

function wordsOf(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().split(/[\p{P}\s`]+/u).filter((word) => word !== '');
}

function resolveLimits(options: ChunkOptions): Limits {
  const target = Math.max(1, Math.floor(options.targetChars ?? DEFAULT_TARGET_CHARS));
  const max = Math.max(target, Math.floor(options.maxChars ?? Math.max(DEFAULT_MAX_CHARS, target)));
  return { target, max };
}

// ---------------------------------------------------------------------------------------------
// Line classification

function isBlank(line: string): boolean {
  return line.trim() === '';
}


const ATX_START = /^ {0,3}(#{1,6})(?=[ \t]|$)/;

function atxHeading(line: string): { level: number; text: string } | undefined {
  const match = ATX_START.exec(line);
  if (!match?.[1]) return undefined;
  let text = line.slice(match[0].length).trim();
  // Optional closing sequence: a run of '#' that is the whole text or follows whitespace.
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 35) end -= 1; // #
  if (end === 0) text = '';
  else if (end < text.length && isSpaceOrTab(text.charCodeAt(end - 1))) {
    text = text.slice(0, end).trimEnd();
  }
  return { level: match[1].length, text };
}

const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;

function setextLevel(line: string): 1 | 2 | undefined {
  if (!SETEXT_UNDERLINE.test(line)) return undefined;
  return line.trim()[0] === '=' ? 1 : 2;
}

function isThematicBreak(line: string): boolean {
  if (indentOf(line) > 3) return false;
  let marker = 0;
  let count = 0;
  for (let at = 0; at < line.length; at++) {
    const code = line.charCodeAt(at);
    if (isSpaceOrTab(code)) continue;
    if (code !== 45 && code !== 42 && code !== 95) return false; // - * _
    if (marker === 0) marker = code;
    else if (code !== marker) return false;
    count += 1;
  }
  return count >= 3;
}

/**
 * Lines are read by character code, not as one-character strings: V8 compiles `ch === ' '` for
 * the shared strings of Latin-1 text, and the first line of other text threw that code away.
 */
function isSpaceOrTab(code: number): boolean {
  return code === 32 || code === 9;
}

const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

function isListItem(line: string): boolean {
  return LIST_ITEM.test(line) && !isThematicBreak(line);
}

function isQuote(line: string): boolean {
  return indentOf(line) <= 3 && line.trimStart().startsWith('>');
}

function tableCells(line: string): string[] {
  let trimmed = line.trim();
  if (trimmed.startsWith('|')) trimmed = trimmed.slice(1);
  if (trimmed.endsWith('|')) trimmed = trimmed.slice(0, -1);
  const cells = trimmed.split('|');
  for (let at = 0; at < cells.length; at++) cells[at] = (cells[at] as string).trim();
  return cells;
}

const DELIMITER_CELL = /^:?-+:?$/;

function startsTable(header: string, delimiter: string | undefined): boolean {
  if (delimiter === undefined || !header.includes('|') || !delimiter.includes('-')) return false;
  if (indentOf(header) > 3 || indentOf(delimiter) > 3) return false;
  const cells = tableCells(delimiter);
  if (!cells.every((cell) => DELIMITER_CELL.test(cell))) return false;
  return cells.length === tableCells(header).length;
}

/** Lines that end a paragraph (or a lazy continuation) without a blank line. */
function interruptsParagraph(line: string): boolean {
  return (
    atxHeading(line) !== undefined ||
    openingFence(line) !== undefined ||
    isQuote(line) ||
    isThematicBreak(line) ||
    (indentOf(line) <= 3 && isListItem(line))
  );
}

// ---------------------------------------------------------------------------------------------
// Parsing lines into sections of blocks

/**
 * The sections of a document as its lines are read: the heading path in effect, and the blocks
 * under it. Methods, not closures made for each document: V8 keeps a closure's optimized code only
 * while one of its closures lives, and compiled them again after every full garbage collection.
 */
class Sections {
  readonly done: Section[] = [];
  private readonly path: { level: number; text: string }[] = [];
  private current: Section = { headings: headingsOf(this.path), blocks: [] };

  // A heading is kept as the reader sees it: a link in it (Sphinx's to its own section) is its text.
  heading(level: number, markdown: string): void {
    const text = linkTexts(markdown);
    const path = this.path;
    while (path.length > 0 && (path[path.length - 1]?.level ?? 0) >= level) path.pop();
    if (text !== '') path.push({ level, text });
    if (this.current.blocks.length > 0) this.done.push(this.current);
    this.current = { headings: headingsOf(path), blocks: [] };
  }

  block(kind: BlockKind, units: readonly string[], text = units.join('\n')): void {
    if (text.trim() !== '') this.current.blocks.push({ kind, units, text });
  }

  finish(): Section[] {
    if (this.current.blocks.length > 0) this.done.push(this.current);
    return this.done;
  }
}

/**
 * The texts of a heading path. Arrays here and below are built with push, not map(): map() makes
 * a holey array in optimized code and a packed one otherwise, and each place that then read both
 * kinds (a join, a length) deoptimized its function.
 */
function headingsOf(path: readonly { text: string }[]): string[] {
  const headings: string[] = [];
  for (const entry of path) headings.push(entry.text);
  return headings;
}

/** lines[start..end), trimmed at the end only or on both sides. */
function trimmedLines(lines: readonly string[], start: number, end: number, sides: 'end' | 'both'): string[] {
  const trimmed: string[] = [];
  for (let i = start; i < end; i++) {
    const line = lines[i] ?? '';
    trimmed.push(sides === 'end' ? line.trimEnd() : line.trim());
  }
  return trimmed;
}

function parseSections(lines: readonly string[]): Section[] {
  const sections = new Sections();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      i += 1;
      continue;
    }

    const fence = openingFence(line);
    if (fence) {
      const end = fenceEnd(lines, i, fence);
      sections.block('code', [lines.slice(i, end).join('\n')]);
      i = end;
      continue;
    }

    const heading = atxHeading(line);
    if (heading) {
      sections.heading(heading.level, heading.text);
      i += 1;
      continue;
    }

    if (isThematicBreak(line)) {
      i += 1;
      continue;
    }

    if (indentOf(line) >= 4) {
      const end = indentedCodeEnd(lines, i);
      sections.block('code', [lines.slice(i, end).join('\n')]);
      i = end;
      continue;
    }

    if (isQuote(line)) {
      const end = quoteEnd(lines, i);
      const quoted = trimmedLines(lines, i, end, 'end');
      sections.block('quote', quoteUnits(quoted), quoted.join('\n'));
      i = end;
      continue;
    }

    if (isListItem(line)) {
      const { end, items } = parseList(lines, i);
      sections.block('list', items, trimTrailingBlankLines(trimmedLines(lines, i, end, 'end')).join('\n'));
      i = end;
      continue;
    }

    if (startsTable(line, lines[i + 1])) {
      const end = tableEnd(lines, i + 2);
      sections.block('table', trimmedLines(lines, i, end, 'both'));
      i = end;
      continue;
    }

    // Paragraph, possibly turned into a setext heading by its underline.
    const start = i;
    i += 1;
    let setext: 1 | 2 | undefined;
    while (i < lines.length) {
      const next = lines[i] ?? '';
      if (isBlank(next)) break;
      setext = setextLevel(next);
      if (setext !== undefined) break;
      if (interruptsParagraph(next)) break;
      i += 1;
    }
    const paragraph = trimmedLines(lines, start, i, 'both');
    if (setext !== undefined) {
      sections.heading(setext, paragraph.join(' '));
      i += 1;
    } else {
      sections.block('paragraph', [paragraph.join('\n')]);
    }
  }
  return sections.finish();
}

/** Index just past the closing fence; an unclosed fence runs to the end of the document. */
function fenceEnd(lines: readonly string[], open: number, fence: Fence): number {
  for (let i = open + 1; i < lines.length; i += 1) {
    if (closesFence(lines[i] ?? '', fence)) return i + 1;
  }
  return lines.length;
}

function indentedCodeEnd(lines: readonly string[], start: number): number {
  let end = start + 1;
  for (let i = start + 1; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (isBlank(line)) continue;
    if (indentOf(line) < 4) break;
    end = i + 1;
  }
  return end;
}

/**
 * The units a quote may be split between: its lines, except that an indented line or a blank one
 * goes with the line before it (a list item with its paragraphs, as a table written as a list of
 * rows is quoted), and fenced code stays whole.
 */
function quoteUnits(lines: readonly string[]): string[] {
  const units: string[][] = [];
  let fence: Fence | undefined;
  for (const line of lines) {
    const inner = unquote(line);
    const unit = units[units.length - 1];
    if (unit !== undefined && (fence !== undefined || isBlank(inner) || indentOf(inner) >= 2)) unit.push(line);
    else units.push([line]);
    if (fence === undefined) fence = openingFence(inner, { anyIndent: true });
    else if (closesFence(inner, fence)) fence = undefined;
  }
  const texts: string[] = [];
  for (const unit of units) texts.push(unit.join('\n'));
  return texts;
}

const TRAILING_QUOTED_BLANKS = /(?:\n {0,3}>[ \t]*)+$/;

function quoteEnd(lines: readonly string[], start: number): number {
  let i = start + 1;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) break;
    // Lazy continuation: a plain line continues the quoted paragraph.
    if (!isQuote(line) && interruptsParagraph(line)) break;
    i += 1;
  }
  return i;
}

function tableEnd(lines: readonly string[], start: number): number {
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line) || interruptsParagraph(line)) break;
    i += 1;
  }
  return i;
}

/**
 * A list runs over its items, their indented continuation lines, lazy continuations, blank lines
 * followed by more of the list, and fenced code inside items (kept intact, blank lines included).
 * Returns the items as split units.
 */
function parseList(lines: readonly string[], start: number): { end: number; items: string[] } {
  const baseIndent = indentOf(lines[start] ?? '');
  const items: string[][] = [];
  let item: string[] = [];
  let i = start;
  let previousBlank = false;

  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      let next = i + 1;
      while (next < lines.length && isBlank(lines[next] ?? '')) next += 1;
      const following = lines[next];
      if (following === undefined) break;
      const continues =
        indentOf(following) > baseIndent || (isListItem(following) && indentOf(following) <= baseIndent + 3);
      if (!continues) break;
      for (let k = i; k < next; k += 1) item.push('');
      i = next;
      previousBlank = true;
      continue;
    }

    const indent = indentOf(line);
    const startsItem = isListItem(line) && indent <= baseIndent + 1;
    if (i !== start && !startsItem) {
      const nested = indent > baseIndent;
      const lazy = !previousBlank && !interruptsParagraph(line) && setextLevel(line) === undefined;
      if (!nested && !lazy) break;
    }
    if (startsItem && item.length > 0) {
      items.push(item);
      item = [];
    }

    const fence = indent > baseIndent ? openingFence(line, { anyIndent: true }) : undefined;
    if (fence) {
      const end = fenceEnd(lines, i, fence);
      for (let k = i; k < end; k += 1) item.push((lines[k] ?? '').trimEnd());
      i = end;
    } else {
      item.push(line.trimEnd());
      i += 1;
    }
    previousBlank = false;
  }
  if (item.length > 0) items.push(item);
  const texts: string[] = [];
  for (const itemLines of items) texts.push(trimTrailingBlankLines(itemLines).join('\n'));
  return { end: i, items: texts };
}

function trimTrailingBlankLines(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && isBlank(lines[end - 1] ?? '')) end -= 1;
  return lines.slice(0, end);
}

// ---------------------------------------------------------------------------------------------
// Packing blocks into chunk bodies

const BLOCK_SEPARATOR = '\n\n';

function packSection(blocks: readonly Block[], limits: Limits): string[] {
  const bodies: string[] = [];
  let parts: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (parts.length > 0) bodies.push(parts.join(BLOCK_SEPARATOR));
    parts = [];
    size = 0;
  };

  for (const block of blocks) {
    const pieces = block.text.length > limits.max ? splitBlock(block, limits) : [block.text];
    for (const piece of pieces) {
      const grown = size === 0 ? piece.length : size + BLOCK_SEPARATOR.length + piece.length;
      if (size > 0 && grown > limits.target) flush();
      parts.push(piece);
      size = size === 0 ? piece.length : size + BLOCK_SEPARATOR.length + piece.length;
    }
  }
  flush();
  return bodies;
}

function splitBlock(block: Block, limits: Limits): string[] {
  switch (block.kind) {
    case 'code':
      return [block.text];
    case 'paragraph':
      return splitText(block.text, limits);
    case 'table': {
      // Every piece repeats the header and delimiter rows so it stays a readable table.
      const header = block.units.slice(0, 2).join('\n');
      const rows = block.units.slice(2);
      const room: Limits = {
        target: Math.max(1, limits.target - header.length - 1),
        max: Math.max(1, limits.max - header.length - 1),
      };
      return packUnits(rows, room, '\n').map((rowsText) => `${header}\n${rowsText}`);
    }
    case 'list':
    case 'quote': {
      const units = block.units.flatMap((unit) =>
        unit.length <= limits.max || containsFence(unit) ? [unit] : splitText(unit, limits),
      );
      // A quote's blank lines go with the unit before them: none is left at the end of a piece.
      return packUnits(units, limits, '\n').map((piece) => (block.kind === 'quote' ? piece.replace(TRAILING_QUOTED_BLANKS, '') : piece));
    }
  }
}

function containsFence(text: string): boolean {
  return text.split('\n').some((line) => openingFence(line, { anyIndent: true }) !== undefined);
}

/** Greedily joins units into pieces of at most `target` characters (a lone unit may be longer). */
function packUnits(units: readonly string[], limits: Limits, separator: string): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current === '') current = unit;
    else if (current.length + separator.length + unit.length <= limits.target) current += separator + unit;
    else {
      pieces.push(current);
      current = unit;
    }
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

/** Splits prose at sentence boundaries, falling back to whitespace, then to a hard cut. */
function splitText(text: string, limits: Limits): string[] {
  const units: string[] = [];
  for (const sentence of sentences(text)) {
    if (sentence.length <= limits.max) units.push(sentence);
    else units.push(...splitAtWhitespace(sentence, limits));
  }
  return packUnits(units, limits, ' ');
}

const SENTENCE_END = new Set(['.', '!', '?', '\u3002', '\uFF01', '\uFF1F']);
const SENTENCE_CLOSERS = new Set(['"', "'", ')', ']', '\u201D', '\u2019', '*', '_']);

function isWhitespace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\n' || ch === '\t';
}

function isLowercase(ch: string): boolean {
  return ch !== ch.toUpperCase() && ch === ch.toLowerCase();
}

/** Sentences of a paragraph, trimmed. A boundary needs end punctuation, then whitespace, then a
 * character that is not a lowercase letter (so "e.g. this" stays together). */
function sentences(text: string): string[] {
  const result: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? '';
    i += 1;
    if (!SENTENCE_END.has(ch)) continue;
    while (i < text.length && SENTENCE_CLOSERS.has(text[i] ?? '')) i += 1;
    if (!isWhitespace(text[i])) continue;
    let next = i;
    while (next < text.length && isWhitespace(text[next])) next += 1;
    if (next < text.length && isLowercase(text[next] ?? '')) continue;
    const sentence = text.slice(start, i).trim();
    if (sentence !== '') result.push(sentence);
    start = next;
    i = next;
  }
  const rest = text.slice(start).trim();
  if (rest !== '') result.push(rest);
  return result;
}

function splitAtWhitespace(text: string, limits: Limits): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > limits.max) {
    let cut = lastWhitespace(text, start, start + limits.target);
    if (cut <= start) cut = firstWhitespace(text, start + limits.target, start + limits.max);
    if (cut <= start) cut = start + limits.max;
    pieces.push(text.slice(start, cut).trim());
    start = cut;
    while (start < text.length && isWhitespace(text[start])) start += 1;
  }
  const rest = text.slice(start).trim();
  if (rest !== '') pieces.push(rest);
  return pieces.filter((piece) => piece !== '');
}

function lastWhitespace(text: string, from: number, to: number): number {
  for (let i = to; i > from; i -= 1) if (isWhitespace(text[i])) return i;
  return -1;
}

function firstWhitespace(text: string, from: number, to: number): number {
  for (let i = from; i <= to && i < text.length; i += 1) if (isWhitespace(text[i])) return i;
  return -1;
}
