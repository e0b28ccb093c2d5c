/**
 * Documents built in memory for the extraction tests: a PDF report and a Word handbook with the
 * features their extractors handle (headings, lists, tables, pictures, a title).
 */
import { Document, HeadingLevel, ImageRun, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { PDFFont, PDFPage } from 'pdf-lib';

// A 1x1 PNG: a page holding only a picture has no text for pdf.js to find.
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** Draws lines of 12 pt text 16 pt apart from the top; an empty string leaves a line free. */
export function drawLines(page: PDFPage, font: PDFFont, lines: readonly string[], top = 750): void {
  let y = top;
  for (const line of lines) {
    if (line !== '') page.drawText(line, { x: 50, y, size: 12, font });
    y -= 16;
  }
}

export async function imagePage(pdf: PDFDocument): Promise<void> {
  const image = await pdf.embedPng(PIXEL_PNG);
  pdf.addPage([595, 842]).drawImage(image, { x: 50, y: 400, width: 300, height: 300 });
}

/** A one-page PDF with a title and one line of text. */
export async function titledPdf(title: string, text: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.setTitle(title);
  pdf.addPage().drawText(text, { x: 50, y: 700, size: 12, font });
  return pdf.save();
}

export async function reportPdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle('Quarterly Report');
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);

  const first = pdf.addPage([595, 842]);
  first.drawText('Introduction', { x: 50, y: 790, size: 20, font: bold });
  drawLines(first, font, [
    'Revenue grew in every region this quarter, led by',
    'the northern offices and a strong showing of the sub-',
    'scription business.',
    '',
    'Costs stayed flat.',
    '',
    '\u2022 Hiring resumed in March',
    '\u2022 Two offices moved to a shared',
    '    building downtown',
    'Outlook follows on the next page.',
  ]);

  const second = pdf.addPage([595, 842]);
  drawLines(second, font, ['The outlook for the coming quarter is cautious but', 'positive.'], 790);

  await imagePage(pdf);
  return pdf.save();
}

function cell(...paragraphs: Paragraph[]): TableCell {
  return new TableCell({ children: paragraphs });
}

export function handbook(title?: string): Promise<Buffer> {
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
