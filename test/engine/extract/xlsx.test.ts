import { randomBytes } from 'node:crypto';
import { Document, Packer, Paragraph } from 'docx';
import writeXlsxFile from 'write-excel-file/node';
import { describe, expect, it } from 'vitest';
import { MAX_ROWS_PER_SHEET, extractXlsx } from '../../../src/engine/ingest/extract/xlsx.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';

const day = (year: number, month: number, date: number, hours = 0, minutes = 0): Date =>
  new Date(Date.UTC(year, month - 1, date, hours, minutes));

describe('extractXlsx', () => {
  it('writes every sheet as a table: header row, ISO dates, escaped cells, no empty rows or columns', async () => {
    const workbook = await writeXlsxFile([
      {
        sheet: 'Sales',
        data: [
          [null, null, null, null],
          ['Region', 'Amount', 'Booked', 'Note', null],
          ['North | East', 1250.5, { value: day(2024, 3, 1), format: 'yyyy-mm-dd' }, 'first\nsecond line', null],
          [null, null, null, null, null],
          ['South', -3, { value: day(2024, 3, 2, 14, 30), format: 'yyyy-mm-dd hh:mm' }, null, null],
          [null, null, null, null, null],
        ],
      },
      { sheet: 'Empty', data: [[null]] },
      {
        sheet: 'Flags',
        data: [
          ['Feature', 'On'],
          ['Search', true],
          ['Export', false],
        ],
      },
    ]).toBuffer();

    const result = await extractXlsx(workbook);

    expect(result.sheets).toBe(3);
    expect(result.title).toBeUndefined();
    expect(result.markdown).toBe(
      [
        '## Sales',
        '',
        '| Region | Amount | Booked | Note |',
        '| --- | --- | --- | --- |',
        '| North \\| East | 1250.5 | 2024-03-01 | first<br>second line |',
        '| South | -3 | 2024-03-02T14:30:00 |  |',
        '',
        '## Flags',
        '',
        '| Feature | On |',
        '| --- | --- |',
        '| Search | TRUE |',
        '| Export | FALSE |',
      ].join('\n'),
    );
  });

  it(`keeps the first ${MAX_ROWS_PER_SHEET} rows of a sheet and says how many were left out`, async () => {
    const rows = Array.from({ length: MAX_ROWS_PER_SHEET + 1234 }, (_, index) => [`row ${index + 1}`, index + 1]);
    const workbook = await writeXlsxFile([{ sheet: 'Log', data: [['Entry', 'Number'], ...rows] }]).toBuffer();

    const { markdown } = await extractXlsx(workbook);
    const lines = markdown.split('\n');

    expect(lines.filter((line) => line.startsWith('| row '))).toHaveLength(MAX_ROWS_PER_SHEET);
    expect(markdown).toContain(`| row ${MAX_ROWS_PER_SHEET} | ${MAX_ROWS_PER_SHEET} |`);
    expect(markdown).not.toContain(`| row ${MAX_ROWS_PER_SHEET + 1} |`);
    expect(lines.at(-1)).toBe('_1,234 more rows of this sheet were left out: only its first 20,000 rows are indexed._');
  });

  it('refuses a workbook whose sheets are all empty', async () => {
    const workbook = await writeXlsxFile([{ sheet: 'Blank', data: [[null, '  ']] }]).toBuffer();
    const failure = await extractXlsx(workbook).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as SourceError).message).toMatch(/no data to index/);
  });

  it('turns bytes that are no workbook into a SourceError', async () => {
    const document = await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('Not a sheet')] }] }));
    for (const bytes of [randomBytes(4096), document, new Uint8Array(0)]) {
      const failure = await extractXlsx(bytes).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SourceError);
      expect((failure as SourceError).message).toMatch(/could not be read as an Excel \(\.xlsx\) workbook/);
    }
  });
});
