/**
 * An Excel (.xlsx) workbook as Markdown, with read-excel-file: each sheet with data becomes a
 * `## <sheet name>` section holding a GitHub-flavoured table, its first non-empty row as header.
 * Empty rows and empty trailing columns are dropped, dates are written as ISO dates, and a sheet
 * is cut after `MAX_ROWS_PER_SHEET` rows with a line saying how many were left out.
 */
import { SourceError } from '../sources/types.js';
import { officeCoreTitle } from './document.js';

export const MAX_ROWS_PER_SHEET = 20_000;

export interface XlsxExtraction {
  readonly title: string | undefined;
  readonly markdown: string;
  /** Sheets in the workbook, empty ones included. */
  readonly sheets: number;
}

export async function extractXlsx(data: Uint8Array): Promise<XlsxExtraction> {
  const { default: readXlsxFile } = await import('read-excel-file/node');
  let workbook: { readonly sheet: string; readonly data: readonly (readonly unknown[])[] }[];
  try {
    workbook = await readXlsxFile(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch (error) {
    throw new SourceError(
      'The file could not be read as an Excel (.xlsx) workbook; it may be damaged, or be another format with an .xlsx name. ' +
        'Open it in Excel, save it as .xlsx and upload it again.',
      { cause: error },
    );
  }
  const sections = workbook.flatMap(({ sheet, data: rows }) => renderSheet(sheet, rows) ?? []);
  if (sections.length === 0) throw new SourceError('The Excel workbook has no data to index: every sheet is empty.');
  return { title: officeCoreTitle(data), markdown: sections.join('\n\n'), sheets: workbook.length };
}

function renderSheet(name: string, rows: readonly (readonly unknown[])[]): string | undefined {
  // The header and the rows kept are formatted; the rest are only counted.
  const table: string[][] = [];
  let nonEmptyRows = 0;
  for (const row of rows) {
    if (!row.some(hasValue)) continue;
    nonEmptyRows++;
    if (table.length <= MAX_ROWS_PER_SHEET) table.push(row.map(formatCell));
  }
  const [header, ...body] = table;
  if (header === undefined) return undefined;
  const width = table.reduce((widest, cells) => Math.max(widest, cells.findLastIndex((cell) => cell !== '') + 1), 0);
  const line = (cells: readonly string[]): string =>
    `| ${Array.from({ length: width }, (_, index) => cells[index] ?? '').join(' | ')} |`;
  const lines = [`## ${escapeHeading(name)}`, '', line(header), `|${' --- |'.repeat(width)}`, ...body.map(line)];
  const leftOut = nonEmptyRows - table.length;
  if (leftOut > 0) {
    lines.push('', `_${leftOut.toLocaleString('en-US')} more rows of this sheet were left out: only its first ` +
      `${MAX_ROWS_PER_SHEET.toLocaleString('en-US')} rows are indexed._`);
  }
  return lines.join('\n');
}

function hasValue(value: unknown): boolean {
  return value !== null && value !== undefined && !(typeof value === 'string' && value.trim() === '');
}

function formatCell(value: unknown): string {
  if (value instanceof Date) return isoDate(value);
  if (typeof value === 'string') return value.trim().replace(/\r\n?|\n/g, '<br>').replace(/\|/g, '\\|');
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return '';
}

/** A date cell as an ISO 8601 date, date and time, or time of day (Excel keeps no time zone). */
function isoDate(date: Date): string {
  const time = date.getTime();
  if (Number.isNaN(time)) return '';
  const iso = new Date(Math.round(time / 1000) * 1000).toISOString();
  const [day, clock] = [iso.slice(0, 10), iso.slice(11, 19)];
  if (clock === '00:00:00') return day;
  // A time of day without a date is stored as a time on Excel's day zero.
  if (day === '1899-12-30' || day === '1899-12-31') return clock;
  return `${day}T${clock}`;
}

function escapeHeading(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/^(#|>)/, '\\$1').replace(/(\s)(#+)$/, '$1\\$2');
}
