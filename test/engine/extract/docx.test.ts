import { randomBytes } from 'node:crypto';
import { Document, Packer, Paragraph } from 'docx';
import writeXlsxFile from 'write-excel-file/node';
import { describe, expect, it } from 'vitest';
import { extractDocx } from '../../../src/engine/ingest/extract/docx.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';
import { handbook } from '../../support/documents.js';

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
        // A cell of two paragraphs makes the table a list of its rows.
        '-   **Office**: Berlin',
        '    ',
        '    **Days**: 30',
        '',
        '-   **Office**: Lisbon',
        '    ',
        '    (and Porto)',
        '    ',
        '    **Days**: • 25',
        '    ',
        '    plus one',
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
