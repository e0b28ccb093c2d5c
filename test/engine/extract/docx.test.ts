import { randomBytes } from 'node:crypto';
import { Document, HeadingLevel, ImageRun, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import writeXlsxFile from 'write-excel-file/node';
import { describe, expect, it } from 'vitest';
import { extractDocx } from '../../../src/engine/ingest/extract/docx.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';

const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

function cell(...paragraphs: Paragraph[]): TableCell {
  return new TableCell({ children: paragraphs });
}

function handbook(title?: string): Promise<Buffer> {
  const document = new Document({
    ...(title === undefined ? {} : { title }),
    sections: [
      {
        children: [
          new Paragraph({ text: 'Employee Handbook', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun('Read this '), new TextRun({ text: 'before your first day', bold: true }), new TextRun('.')] }),
          new Paragraph({ text: 'Holidays', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Ask your manager first', bullet: { level: 0 } }),
          new Paragraph({ text: 'Book at least two weeks ahead', bullet: { level: 0 } }),
          new Paragraph({ children: [new ImageRun({ type: 'png', data: PIXEL_PNG, transformation: { width: 20, height: 20 } })] }),
          new Table({
            rows: [
              new TableRow({ children: [cell(new Paragraph('Office')), cell(new Paragraph('Days'))] }),
              new TableRow({ children: [cell(new Paragraph('Berlin')), cell(new Paragraph('30'))] }),
              new TableRow({
                children: [
                  cell(new Paragraph('Lisbon'), new Paragraph('(and Porto)')),
                  cell(new Paragraph({ text: '25', bullet: { level: 0 } }), new Paragraph({ text: 'plus one', heading: HeadingLevel.HEADING_3 })),
                ],
              }),
            ],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(document);
}

describe('extractDocx', () => {
  it('keeps headings, lists, tables and bold text, and takes the title from the core properties', async () => {
    const result = await extractDocx(await handbook('Handbook 2025'));

    expect(result.title).toBe('Handbook 2025');
    expect(result.markdown).toBe(
      [
        '# Employee Handbook',
        '',
        'Read this **before your first day**.',
        '',
        '## Holidays',
        '',
        '-   Ask your manager first',
        '-   Book at least two weeks ahead',
        '',
        '| Office | Days |',
        '| --- | --- |',
        '| Berlin | 30  |',
        '| Lisbon<br>(and Porto) | • 25<br>plus one |',
      ].join('\n'),
    );
    // Pictures are left out, not inlined as data: URLs.
    expect(result.markdown).not.toMatch(/data:|!\[/);
  });

  it('falls back to the first heading for the title', async () => {
    const result = await extractDocx(await handbook());
    expect(result.title).toBe('Employee Handbook');
  });

  it('reads a Buffer slice in place', async () => {
    const bytes = await handbook('Sliced');
    const padded = Buffer.concat([Buffer.from('prefix'), bytes, Buffer.from('suffix')]);
    const result = await extractDocx(padded.subarray(6, 6 + bytes.length));
    expect(result.title).toBe('Sliced');
  });

  it('turns bytes that are no Word document into a SourceError', async () => {
    const workbook = await writeXlsxFile([['not', 'a', 'document']]).toBuffer();
    for (const bytes of [randomBytes(4096), workbook, new Uint8Array(0)]) {
      const failure = await extractDocx(bytes).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SourceError);
      expect((failure as SourceError).message).toMatch(/could not be read as a Word \(\.docx\) document/);
    }
  });

  it('refuses a document without text', async () => {
    const empty = await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('')] }] }));
    const failure = await extractDocx(empty).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as SourceError).message).toBe('The Word document has no text to index.');
  });
});
