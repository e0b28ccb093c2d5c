/**
 * Text of a PDF as Markdown, with unpdf (a serverless build of pdf.js): one `## Page N` section per
 * page so that chunks cite their page. pdf.js gives positioned runs of text (unpdf's extractText
 * joins them without their positions, so the pages are read through its document proxy instead):
 * runs are put back into lines and lines into paragraphs by their spacing and indentation; words
 * hyphenated across a line break are made whole, bullet lines become list items, short lines in a
 * larger font headings, and running heads and page numbers are dropped. There is no OCR: a PDF of
 * scanned pages has no text to give.
 */
import type * as Unpdf from 'unpdf';
import { SourceError } from '../sources/types.js';

export interface PdfExtraction {
  readonly title: string | undefined;
  readonly markdown: string;
  /** Pages in the document, those without text included. */
  readonly pages: number;
}

export async function extractPdf(data: Uint8Array): Promise<PdfExtraction> {
  const { getDocumentProxy, getMeta } = await import('unpdf');
  let pdf: PdfDocument;
  try {
    // pdf.js takes over (detaches) a buffer it is given whole; a copy keeps the caller's bytes intact.
    // Verbosity 0: pdf.js writes its warnings to stdout, which is the MCP channel in stdio mode.
    pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
  } catch (error) {
    throw unreadablePdf(error);
  }
  try {
    const title = await titleOf(pdf, getMeta);
    const pages: Line[][] = [];
    let unreadablePages = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      try {
        const page = await pdf.getPage(number);
        pages.push(linesOf((await page.getTextContent()).items));
        page.cleanup();
      } catch {
        // One damaged page should not cost the others; it reads as a page without text.
        unreadablePages++;
        pages.push([]);
      }
    }
    if (pdf.numPages > 0 && unreadablePages === pdf.numPages) throw unreadablePdf(new Error('no page could be read'));
    const markdown = renderPages(pages);
    if (markdown === '') {
      throw new SourceError(
        'The PDF has no extractable text; it may consist of scanned images, and OCR is not supported. ' +
          'Run it through OCR (or export a text-based PDF) and upload it again.',
      );
    }
    return { title, markdown, pages: pdf.numPages };
  } catch (error) {
    throw error instanceof SourceError ? error : unreadablePdf(error);
  } finally {
    await pdf.loadingTask.destroy();
  }
}

type PdfDocument = Awaited<ReturnType<typeof Unpdf.getDocumentProxy>>;

async function titleOf(pdf: PdfDocument, getMeta: typeof Unpdf.getMeta): Promise<string | undefined> {
  try {
    const { info } = await getMeta(pdf);
    const raw: unknown = info.Title;
    if (typeof raw !== 'string') return undefined;
    // Office's PDF export names the application in front of the file name.
    const title = raw.replace(/^Microsoft (?:Word|Excel|PowerPoint) - /, '').replace(/\s+/g, ' ').trim();
    return title === '' ? undefined : title;
  } catch {
    return undefined;
  }
}

function unreadablePdf(error: unknown): SourceError {
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException') {
    return new SourceError(
      'The PDF is password-protected and cannot be read; remove the password (for example by printing it to a new PDF) and upload it again.',
      { cause: error },
    );
  }
  const reason = error instanceof Error && error.message !== '' ? ` (${error.message.replace(/\.$/, '')})` : '';
  return new SourceError(
    `The file could not be read as a PDF${reason}; it may be damaged or incomplete. Export it again and upload the new file.`,
    { cause: error },
  );
}

// --- Layout: pdf.js text items -> lines -> paragraphs -> Markdown.

/** A text item of pdf.js's getTextContent(), as far as it is read here. */
interface TextItem {
  readonly str: string;
  /** [scaleX, skewY, skewX, scaleY, x, y] of the text's start. */
  readonly transform: readonly number[];
  readonly height: number;
  readonly hasEOL: boolean;
}

interface Line {
  readonly text: string;
  readonly x: number;
  /** Baseline; grows upwards. */
  readonly y: number;
  readonly size: number;
}

type BlockKind = 'paragraph' | 'bullet' | 'numbered';

interface Block {
  readonly kind: BlockKind;
  readonly lines: Line[];
}

const BULLET = /^(?:[•◦▪▫‣∙●○■□➢➤►✓✔]\s*|[-–—*]\s+)(?=\S)/u;
const NUMBERED = /^\d{1,3}[.)]\s+(?=\S)/;

function isTextItem(item: unknown): item is TextItem {
  return typeof item === 'object' && item !== null && 'str' in item && 'transform' in item;
}

function linesOf(items: readonly unknown[]): Line[] {
  const lines: Line[] = [];
  let current: { text: string; x: number; y: number; size: number } | undefined;
  const finish = (): void => {
    const text = current?.text.replace(/\s+/g, ' ').trim() ?? '';
    if (current !== undefined && text !== '') lines.push({ text, x: current.x, y: current.y, size: current.size });
    current = undefined;
  };
  for (const item of items) {
    if (!isTextItem(item)) continue;
    const [, , skewX = 0, scaleY = 0, x = 0, y = 0] = item.transform;
    const size = item.height > 0 ? item.height : Math.hypot(skewX, scaleY);
    const blank = item.str.trim() === '';
    // pdf.js marks most line ends; a jump in the baseline ends a line it did not mark.
    if (current !== undefined && !blank && Math.abs(y - current.y) > Math.max(current.size, size) * 0.6) finish();
    if (current === undefined && !blank) current = { text: '', x, y, size };
    if (current !== undefined) {
      current.text += item.str;
      if (!blank) current.size = Math.max(current.size, size);
    }
    if (item.hasEOL) finish();
  }
  finish();
  return lines;
}

function renderPages(pages: readonly Line[][]): string {
  const bodySize = mostCommonSize(pages);
  const sections: string[] = [];
  withoutRunningLines(pages.map(blocksOf), bodySize).forEach((blocks, index) => {
    const body = renderBlocks(blocks, bodySize);
    if (body !== '') sections.push(`## Page ${index + 1}\n\n${body}`);
  });
  return sections.join('\n\n');
}

/**
 * Drops running heads and feet: a first or last line of a page, in body text size or smaller,
 * that recurs, numbers aside, at the edge of at least three pages and a fifth of them (page
 * numbers, "Chapter 4: Reference 17"). A document title repeated as a running head stays where it
 * is set large.
 */
function withoutRunningLines(pages: readonly Block[][], bodySize: number): Block[][] {
  const key = (block: Block): string => joinLines(block.lines).toLowerCase().replace(/\d+/g, '#');
  const edges = (blocks: readonly Block[]): Block[] => (blocks.length < 2 ? [] : [blocks[0], blocks.at(-1)].filter((block) => block !== undefined));
  const pagesWith = new Map<string, number>();
  for (const blocks of pages) {
    for (const edge of new Set(edges(blocks).map(key))) pagesWith.set(edge, (pagesWith.get(edge) ?? 0) + 1);
  }
  const running = (block: Block): boolean => {
    const [line, ...more] = block.lines;
    return line !== undefined && more.length === 0 && line.text.length <= 120 && line.size <= bodySize * 1.05 &&
      (pagesWith.get(key(block)) ?? 0) >= Math.max(3, pages.length / 5);
  };
  return pages.map((blocks) => {
    const drop = new Set(edges(blocks).filter(running));
    return drop.size === 0 ? [...blocks] : blocks.filter((block) => !drop.has(block));
  });
}

/** The font size most of the text is set in, by characters. */
function mostCommonSize(pages: readonly Line[][]): number {
  const characters = new Map<number, number>();
  for (const line of pages.flat()) {
    const size = Math.round(line.size * 2) / 2;
    characters.set(size, (characters.get(size) ?? 0) + line.text.length);
  }
  let best = 0;
  let bestCount = -1;
  for (const [size, count] of characters) {
    if (count > bestCount) [best, bestCount] = [size, count];
  }
  return best;
}

function blocksOf(lines: readonly Line[]): Block[] {
  const pitch = linePitch(lines);
  const blocks: Block[] = [];
  let previous: Line | undefined;
  for (const line of lines) {
    const kind: BlockKind = BULLET.test(line.text) ? 'bullet' : NUMBERED.test(line.text) ? 'numbered' : 'paragraph';
    const block = blocks.at(-1);
    if (block === undefined || previous === undefined || kind !== 'paragraph' || startsNewBlock(previous, line, block, pitch)) {
      blocks.push({ kind, lines: [line] });
    } else {
      block.lines.push(line);
    }
    previous = line;
  }
  return blocks;
}

/** The usual distance between the baselines of consecutive lines on the page. */
function linePitch(lines: readonly Line[]): number | undefined {
  const gaps: number[] = [];
  for (let index = 1; index < lines.length; index++) {
    const [above, below] = [lines[index - 1], lines[index]];
    if (above === undefined || below === undefined) continue;
    const gap = above.y - below.y;
    if (gap > above.size * 0.3 && gap < above.size * 2.5) gaps.push(gap);
  }
  if (gaps.length === 0) return undefined;
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)];
}

function startsNewBlock(previous: Line, line: Line, block: Block, pitch: number | undefined): boolean {
  const size = Math.max(previous.size, line.size);
  const gap = previous.y - line.y;
  // Same baseline: the next cell of a table row, or text pdf.js split; it stays with its line.
  if (Math.abs(gap) < size * 0.3) return false;
  // Upwards: a new column or a text box placed out of reading order.
  if (gap < 0) return true;
  if (Math.abs(previous.size - line.size) > Math.min(previous.size, line.size) * 0.15) return true;
  const limit = pitch === undefined ? size * 1.5 : Math.max(pitch * 1.3, size * 1.15);
  if (gap > limit) return true;
  const first = block.lines[0] ?? previous;
  // A list item's continuation lines hang under its text; a line back at the bullet starts new text.
  if (block.kind !== 'paragraph') return line.x <= first.x + size * 0.25;
  // A first-line indent after a finished sentence starts a paragraph.
  return line.x > previous.x + size && /[.!?:"”)]$/u.test(previous.text);
}

function renderBlocks(blocks: readonly Block[], bodySize: number): string {
  let markdown = '';
  let previousKind: BlockKind | undefined;
  for (const block of blocks) {
    const text = joinLines(block.lines);
    const rendered =
      block.kind === 'bullet'
        ? `- ${text.replace(BULLET, '')}`
        : isHeading(block, text, bodySize)
          ? `### ${escapeBlockStart(text)}`
          : block.kind === 'numbered'
            ? text
            : escapeBlockStart(text);
    const separator = previousKind === undefined ? '' : previousKind === block.kind && block.kind !== 'paragraph' ? '\n' : '\n\n';
    markdown += separator + rendered;
    previousKind = block.kind;
  }
  return markdown;
}

function isHeading(block: Block, text: string, bodySize: number): boolean {
  const size = Math.min(...block.lines.map((line) => line.size));
  return bodySize > 0 && size >= bodySize * 1.2 && block.lines.length <= 2 && text.length <= 120 &&
    /\p{L}/u.test(text) && !/[.,;]$/.test(text) && !/(?:\.\s*){4}/.test(text); // dot leaders: a contents entry
}

/**
 * Lines of one paragraph as one line. A word hyphenated across a line break is made whole again
 * when the letters either side of the break are of one case ("sub-|scription", "SE-|QUENCE").
 */
function joinLines(lines: readonly Line[]): string {
  let text = '';
  for (const { text: line } of lines) {
    if (text === '') text = line;
    else if ((/\p{Ll}[-\u00ad]$/u.test(text) && /^\p{Ll}/u.test(line)) || (/\p{Lu}[-\u00ad]$/u.test(text) && /^\p{Lu}{2}/u.test(line))) {
      text = text.slice(0, -1) + line;
    } else {
      text += ` ${line}`;
    }
  }
  return text;
}

/** Keeps text that opens like Markdown block syntax from being read as such. */
function escapeBlockStart(text: string): string {
  return text.replace(/^(#|>|\+\s|```|~~~)/, '\\$1').replace(/(\s)(#+)$/, '$1\\$2');
}
