/**
 * Tables whose cells hold blocks (lists, code blocks, quotes, headings, several paragraphs), which
 * a GFM table cannot hold: each row becomes an item of a list, its cells' blocks one after another
 * in the item, each under its column's heading as a bold label when the table has headings over
 * two columns or more (a single column's headings are written once, above the list). A table of
 * one row lays out columns of a page: its cells are written one after another.
 */
import { openingFence } from '../../../text/fences.js';

/** A cell as the walk wrote it, before a layout was chosen. */
export interface WrittenCell {
  readonly markdown: string;
  readonly columnSpan: number;
}

export interface WrittenRow {
  readonly heading: boolean;
  readonly cells: readonly WrittenCell[];
}

const BLANK_LINE = /\n[ \t]*\n/;
/** What the writer starts a block with (text that would read so is escaped): list items, headings, quotes, rules. */
const BLOCK_START = /^(?:[-*+] |\d+\. |#{1,6} |>|\* \* \*)/;
const ITEM = '-   ';
const ITEM_INDENT = ' '.repeat(ITEM.length);

/** Whether a cell's Markdown is more than one line of inline text: several blocks, or one that is not a paragraph. */
export function holdsBlocks(markdown: string): boolean {
  const text = markdown.trim();
  return BLANK_LINE.test(text) || startsBlock(text);
}

function startsBlock(text: string): boolean {
  if (BLOCK_START.test(text)) return true;
  const end = text.indexOf('\n');
  return openingFence(end < 0 ? text : text.slice(0, end)) !== undefined;
}

/** The Markdown of a table of blocks, its rows in the order written. */
export function blockTable(rows: readonly WrittenRow[]): string {
  const body = rows.filter((row) => !row.heading);
  if (rows.length === 1 || body.length === 0) return rows.flatMap((row) => row.cells.map((cell) => cell.markdown.trim())).filter((text) => text !== '').join('\n\n');
  const labels = columnLabels(rows.filter((row) => row.heading));
  const labelled = labels.length > 1;
  const items = body.map((row) => item(row, labelled ? labels : [])).filter((text) => text !== '');
  const heading = labelled ? '' : labels.filter((label) => label !== '').join(' / ');
  return [heading === '' ? '' : bold(heading), ...items].filter((text) => text !== '').join('\n\n');
}

/** Each column's label: its heading cells' text (lines joined by ` / `), a cell spanning columns heading each of them. */
function columnLabels(headingRows: readonly WrittenRow[]): string[] {
  const parts: string[][] = [];
  for (const row of headingRows) {
    let column = 0;
    for (const cell of row.cells) {
      const label = labelOf(cell.markdown);
      for (let spanned = 0; spanned < cell.columnSpan; spanned++, column++) {
        const columnParts = (parts[column] ??= []);
        if (label !== '' && columnParts.at(-1) !== label) columnParts.push(label);
      }
    }
  }
  return Array.from(parts, (column) => (column ?? []).join(' / '));
}

function labelOf(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' / ')
    .replace(/:$/, '');
}

function item(row: WrittenRow, labels: readonly string[]): string {
  const parts: string[] = [];
  let column = 0;
  for (const cell of row.cells) {
    const label = labels[column] ?? '';
    column += cell.columnSpan;
    const text = cell.markdown.trim();
    if (text === '') continue;
    if (label === '') parts.push(text);
    else parts.push(startsBlock(text) ? `${bold(label)}:\n\n${text}` : `${bold(label)}: ${text}`);
  }
  return parts.length === 0 ? '' : ITEM + parts.join('\n\n').replace(/\n/g, `\n${ITEM_INDENT}`);
}

/** Bold text, unless it already holds bold text (which cannot nest). */
function bold(text: string): string {
  return text.includes('**') ? text : `**${text}**`;
}
