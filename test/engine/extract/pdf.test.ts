import { PDFDocument, PDFHexString, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { extractPdf } from '../../../src/engine/ingest/extract/pdf.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';
import { drawLines, imagePage, reportPdf } from '../../support/documents.js';

describe('extractPdf', () => {
  it('writes a section per page with paragraphs, headings and lists, and reads the title', async () => {
    const result = await extractPdf(await reportPdf());

    expect(result.title).toBe('Quarterly Report');
    expect(result.pages).toBe(3);
    expect(result.markdown).toBe(
      [
        '## Page 1',
        '',
        '### Introduction',
        '',
        'Revenue grew in every region this quarter, led by the northern offices and a strong showing of the subscription business.',
        '',
        'Costs stayed flat.',
        '',
        '- Hiring resumed in March',
        '- Two offices moved to a shared building downtown',
        '',
        'Outlook follows on the next page.',
        '',
        '## Page 2',
        '',
        'The outlook for the coming quarter is cautious but positive.',
      ].join('\n'),
    );
  });

  it('leaves the caller\'s bytes intact (pdf.js takes over the buffer it is given)', async () => {
    const bytes = await reportPdf();
    const copy = Uint8Array.from(bytes);
    await extractPdf(bytes);
    expect(bytes.byteLength).toBe(copy.byteLength);
    expect(Buffer.from(bytes).equals(Buffer.from(copy))).toBe(true);
  });

  it('has no title when the metadata has none, and keeps Markdown-like text literal', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    drawLines(pdf.addPage([595, 842]), font, ['# not a heading', '', '> not a quote']);
    const result = await extractPdf(await pdf.save());
    expect(result.title).toBeUndefined();
    expect(result.markdown).toBe('## Page 1\n\n\\# not a heading\n\n\\> not a quote');
  });

  it('drops running heads and page numbers, keeps the title page\'s title and numbered headings', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    for (let number = 1; number <= 4; number++) {
      const page = pdf.addPage([595, 842]);
      if (number === 1) page.drawText('Acme Handbook', { x: 50, y: 800, size: 24, font });
      else page.drawText('Acme Handbook', { x: 50, y: 810, size: 9, font });
      page.drawText(`${number}. Topic ${number}`, { x: 50, y: 740, size: 16, font });
      drawLines(page, font, [`Body text of page ${number}, in sentences`, 'long enough to wrap onto a second line.'], 700);
      page.drawText(`Page ${number} of 4`, { x: 280, y: 30, size: 9, font });
    }
    const { markdown } = await extractPdf(await pdf.save());

    expect(markdown.match(/Acme Handbook/g)).toHaveLength(1);
    expect(markdown).not.toMatch(/Page \d of 4/);
    expect(markdown).toContain(
      '## Page 1\n\n### Acme Handbook\n\n### 1. Topic 1\n\nBody text of page 1, in sentences long enough to wrap onto a second line.\n\n## Page 2\n\n### 2. Topic 2\n\n',
    );
  });

  it('refuses a PDF of images only: no text, no OCR', async () => {
    const pdf = await PDFDocument.create();
    await imagePage(pdf);
    await imagePage(pdf);
    const failure = await extractPdf(await pdf.save()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as SourceError).message).toMatch(/no extractable text.*scanned.*OCR is not supported/);
  });

  it('turns a truncated PDF and bytes that are no PDF into a SourceError', async () => {
    const bytes = await reportPdf();
    for (const damaged of [bytes.slice(0, 400), Buffer.from('%PDF-1.7\nnothing else here'), new Uint8Array(0)]) {
      const failure = await extractPdf(damaged).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SourceError);
      expect((failure as SourceError).message).toMatch(/could not be read as a PDF.*damaged or incomplete/);
    }
  });

  it('says so when a PDF needs a password', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    drawLines(pdf.addPage(), font, ['secret']);
    // The standard security handler with an owner and user key that the empty password does not open.
    const context = pdf.context;
    context.trailerInfo.Encrypt = context.register(
      context.obj({ Filter: 'Standard', V: 1, R: 2, O: PDFHexString.of('00'.repeat(32)), U: PDFHexString.of('11'.repeat(32)), P: -4 }),
    );
    const id = PDFHexString.of('0123456789abcdef0123456789abcdef');
    context.trailerInfo.ID = context.obj([id, id]);

    const failure = await extractPdf(await pdf.save({ useObjectStreams: false })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as SourceError).message).toMatch(/password-protected/);
  });
});
