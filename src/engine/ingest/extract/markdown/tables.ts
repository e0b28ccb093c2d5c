/**
 * GitHub-flavoured Markdown tables, laid out as turndown's GFM plugin laid them out: a row of
 * headings and its divider (an empty heading row when the table has none), `|` escaped in cells,
 * line breaks in cells as <br>, alignment by the cells' votes. A table that holds another table,
 * or has a single cell, is written as its cells' content one after another. A table with a cell
 * that holds blocks, which a GFM cell cannot, is written by block-tables.ts instead.
 */
import { blockTable, holdsBlocks, type WrittenCell, type WrittenRow } from './block-tables.js';
import { closestAncestor, isElement } from './elements.js';
import type { CollapsedTree } from './tree.js';

type Alignment = '' | 'left' | 'right' | 'center';

/** Why a table is written as its cells' content: it has one cell, or it lays out other tables. */
type Flat = 'one cell' | 'holds a table';

interface TableLayout {
  /** Rows of the head, then of the bodies, then of the foot. */
  readonly rows: readonly Element[];
  /** The most cells of a row. */
  readonly columns: number;
  /** Each column's alignment, worked out when first needed. */
  alignments?: readonly Alignment[];
  /** The rows as the walk wrote them, with their cells' Markdown, for a table of blocks. */
  readonly written: WrittenRow[];
  /** Cells written since the last row ended. */
  cells: WrittenCell[];
  /** Whether a cell holds blocks. */
  holdsBlocks: boolean;
}

const BORDERS: Record<Alignment, string> = { '': '---', left: ':---', right: '---:', center: ':---:' };
const DIVIDER = /\| :?---/;
/** HTML's own limit on colspan. */
const MAX_COLUMN_SPAN = 1000;

export class Tables {
  /** Each table met, with its layout, or why it is written as its cells' content. */
  private readonly layouts = new Map<Element, TableLayout | Flat>();

  constructor(private readonly tree: CollapsedTree) {}

  table(table: Element, content: string): string {
    const layout = this.layout(table);
    if (typeof layout === 'string') return content;
    const caption = this.tree.firstDescendant(table, 'caption');
    const captionText = caption === undefined ? '' : this.tree.textContent(caption);
    const above = captionText ? `${captionText}\n\n` : '';
    if (layout.holdsBlocks) {
      if (layout.cells.length > 0) layout.written.push({ heading: false, cells: layout.cells });
      return `\n\n${above}${blockTable(layout.written)}\n\n`;
    }
    const rows = content.replace(/\n+/g, '\n');
    let emptyHeading = '';
    if (layout.columns > 0 && !DIVIDER.test(secondLine(rows.trim()))) {
      emptyHeading = `|${'     |'.repeat(layout.columns)}\n|`;
      for (const alignment of this.alignments(layout)) emptyHeading += ` ${BORDERS[alignment]} |`;
    }
    return `\n\n${above}${`${emptyHeading}${rows}`.trimStart()}\n\n`;
  }

  row(row: Element, content: string): string {
    const layout = this.layoutAround(row);
    if (typeof layout === 'string') return content;
    const heading = this.isHeadingRow(row);
    layout.written.push({ heading, cells: layout.cells });
    layout.cells = [];
    let divider = '';
    if (heading) {
      const cells = this.tree.childNodes(row);
      const alignments = this.alignments(layout);
      for (let column = 0; column < layout.columns; column++) divider += cellText(BORDERS[alignments[column] ?? ''], cells[column], column);
    }
    return `\n${content}${divider ? `\n${divider}` : ''}`;
  }

  cell(cell: Element, content: string): string {
    const layout = this.layoutAround(cell);
    // The cells of a table laid out with tables are blocks of their own.
    if (layout === 'holds a table') return `\n\n${content}\n\n`;
    if (layout === 'one cell') return content;
    layout.cells.push({ markdown: content, columnSpan: columnSpan(cell) });
    if (!layout.holdsBlocks && holdsBlocks(content)) layout.holdsBlocks = true;
    let index = 0;
    for (let node = this.tree.previousSibling(cell); node !== null; node = this.tree.previousSibling(node)) index++;
    return cellText(content, cell, index);
  }

  private layoutAround(part: Element): TableLayout | Flat {
    const table = closestAncestor(part, 'table');
    return table === undefined ? 'one cell' : this.layout(table);
  }

  private layout(table: Element): TableLayout | Flat {
    let layout = this.layouts.get(table);
    if (layout === undefined) {
      layout = this.measure(table);
      this.layouts.set(table, layout);
    }
    return layout;
  }

  private measure(table: Element): TableLayout | Flat {
    const rows = tableRows(table);
    // Loops, not arrows made for each table: V8 compiled those again for every page.
    let columns = 0;
    for (const row of rows) columns = Math.max(columns, this.tree.childNodes(row).length);
    if (rows.length === 1 && columns <= 1) return 'one cell';
    if (this.tree.firstDescendant(table, 'table') !== undefined) return 'holds a table';
    return { rows, columns, written: [], cells: [], holdsBlocks: false };
  }

  private alignments(layout: TableLayout): readonly Alignment[] {
    if (layout.alignments !== undefined) return layout.alignments;
    const cellsByRow: Node[][] = [];
    for (const row of layout.rows) cellsByRow.push(this.tree.childNodes(row));
    const alignments: Alignment[] = [];
    for (let column = 0; column < layout.columns; column++) {
      const votes: Record<Alignment, number> = { '': 0, left: 0, right: 0, center: 0 };
      let alignment: Alignment = '';
      for (const cells of cellsByRow) {
        const cell = cells[column];
        if (cell === undefined) continue;
        const vote = alignmentOf(cell);
        if (vote === undefined) continue;
        votes[vote] += 1;
        if (votes[vote] > votes[alignment]) alignment = vote;
      }
      alignments.push(alignment);
    }
    layout.alignments = alignments;
    return alignments;
  }

  /** A row of headings: the head's, or the table's first row of nothing but <th>s. */
  private isHeadingRow(row: Element): boolean {
    const parent = row.parentNode;
    if (parent === null || !isElement(parent)) return false;
    if (parent.localName === 'thead') return true;
    if (this.tree.firstChild(parent) !== row) return false;
    if (parent.localName !== 'table' && !this.isFirstBody(parent)) return false;
    return this.tree.childNodes(row).every((cell) => isElement(cell) && cell.localName === 'th');
  }

  private isFirstBody(element: Element): boolean {
    if (element.localName !== 'tbody') return false;
    const previous = this.tree.previousSibling(element);
    return previous === null || (isElement(previous) && previous.localName === 'thead' && this.tree.textContent(previous).trim() === '');
  }
}

/** The rows of a table: those of its head, then of its bodies (and its own), then of its foot. */
function tableRows(table: Element): Element[] {
  const head: Element[] = [];
  const body: Element[] = [];
  const foot: Element[] = [];
  for (let child = table.firstElementChild; child !== null; child = child.nextElementSibling) {
    const name = child.localName;
    if (name === 'tr') body.push(child);
    else if (name === 'thead' || name === 'tbody' || name === 'tfoot') {
      const rows = name === 'thead' ? head : name === 'tfoot' ? foot : body;
      for (let row = child.firstElementChild; row !== null; row = row.nextElementSibling) if (row.localName === 'tr') rows.push(row);
    }
  }
  return [...head, ...body, ...foot];
}

/** A cell's alignment from its align attribute or style, or undefined for one that is none of the known. */
function alignmentOf(cell: Node): Alignment | undefined {
  if (!isElement(cell)) return '';
  let value = cell.getAttribute('align');
  if (!value && cell.hasAttribute('style')) value = (cell as HTMLElement).style.textAlign;
  const alignment = (value ?? '').toLowerCase();
  return alignment === '' || alignment === 'left' || alignment === 'right' || alignment === 'center' ? alignment : undefined;
}

function cellText(content: string, cell: Node | undefined, index: number): string {
  let text = content.trim().replace(/\n\r/g, '<br>').replace(/\n/g, '<br>').replace(/\|+/g, '\\|').padEnd(3);
  if (cell !== undefined && isElement(cell)) {
    const span = columnSpan(cell);
    for (let column = 1; column < span; column++) text += ' |    ';
  }
  return `${index === 0 ? '| ' : ' '}${text} |`;
}

/** How many columns a cell takes: its colspan, at least one and at most HTML's limit. */
function columnSpan(cell: Element): number {
  const span = Math.min(Number(cell.getAttribute('colspan') || 1), MAX_COLUMN_SPAN);
  return span > 1 ? Math.ceil(span) : 1;
}

/** The second line of the text, or the text when it has one line. */
function secondLine(text: string): string {
  const end = text.indexOf('\n');
  if (end < 0) return text;
  const next = text.indexOf('\n', end + 1);
  return text.slice(end + 1, next < 0 ? undefined : next);
}
