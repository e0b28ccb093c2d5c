import { randomBytes } from 'node:crypto';
import { Document, Packer, Paragraph } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import writeXlsxFile from 'write-excel-file/node';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  documentKindOf,
  extractDocument,
  officeCoreTitle,
  unsupportedDocumentMessage,
} from '../../../src/engine/ingest/extract/document.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';

/** A ZIP archive of stored (uncompressed) entries, enough for the central-directory reader. */
function zip(entries: Readonly<Record<string, string>>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(entries)) {
    const nameBytes = Buffer.from(name);
    const data = Buffer.from(text);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const OLE_HEADER = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

let pdf: Uint8Array;
let docx: Buffer;
let xlsx: Buffer;

beforeAll(async () => {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  document.addPage().drawText('A page of text.', { x: 50, y: 700, size: 12, font });
  document.addPage().drawText('Another page.', { x: 50, y: 700, size: 12, font });
  pdf = await document.save();
  docx = await Packer.toBuffer(new Document({ title: 'Memo', sections: [{ children: [new Paragraph('Memo text.')] }] }));
  xlsx = await writeXlsxFile([
    { sheet: 'One', data: [['a'], [1]] },
    { sheet: 'Two', data: [['b'], [2]] },
  ]).toBuffer();
});

describe('documentKindOf', () => {
  it('knows documents by their bytes, whatever their name says', () => {
    expect(documentKindOf('report.pdf', pdf)).toBe('PDF');
    expect(documentKindOf('report', pdf)).toBe('PDF');
    expect(documentKindOf('scan.bin', Buffer.concat([Buffer.from('junk before the header\n'), pdf]))).toBe('PDF');
    expect(documentKindOf('memo.docx', docx)).toBe('WORD');
    expect(documentKindOf('memo.xlsx', docx)).toBe('WORD');
    expect(documentKindOf('sheet.xlsx', xlsx)).toBe('EXCEL');
    expect(documentKindOf('sheet.pdf', xlsx)).toBe('EXCEL');
  });

  it('uses the extension only where the bytes leave it open', () => {
    const both = zip({ '[Content_Types].xml': '<Types/>', 'word/document.xml': '<w/>', 'xl/workbook.xml': '<x/>' });
    expect(documentKindOf('mixed.docx', both)).toBe('WORD');
    expect(documentKindOf('mixed.xlsx', both)).toBe('EXCEL');
    expect(documentKindOf('mixed.zip', both)).toBeUndefined();

    // A package cut short has no central directory to read: its name decides, and the extractor reports.
    const truncated = docx.subarray(0, docx.length - 200);
    expect(documentKindOf('memo.docx', truncated)).toBe('WORD');
    expect(documentKindOf('memo.zip', truncated)).toBeUndefined();
  });

  it('finds no kind for legacy Office files, other packages, archives and random bytes', () => {
    expect(documentKindOf('old.doc', Buffer.concat([OLE_HEADER, randomBytes(512)]))).toBeUndefined();
    expect(documentKindOf('old.xls', Buffer.concat([OLE_HEADER, randomBytes(512)]))).toBeUndefined();
    expect(documentKindOf('slides.pptx', zip({ '[Content_Types].xml': '<Types/>', 'ppt/presentation.xml': '<p/>' }))).toBeUndefined();
    expect(documentKindOf('fake.docx', zip({ 'word/document.xml': '<w/>' }))).toBeUndefined();
    expect(documentKindOf('random.docx', randomBytes(2048))).toBeUndefined();
    expect(documentKindOf('empty.pdf', new Uint8Array(0))).toBeUndefined();
  });
});

describe('unsupportedDocumentMessage', () => {
  it('says what the file is and what to upload instead', () => {
    expect(unsupportedDocumentMessage('dir/old.doc', Buffer.concat([OLE_HEADER, randomBytes(64)]))).toMatch(
      /^old\.doc is a legacy Office file .* save it as \.docx or \.xlsx without a password/,
    );
    expect(unsupportedDocumentMessage('slides.pptx', zip({ 'ppt/presentation.xml': '<p/>' }))).toMatch(
      /^slides\.pptx is a ZIP archive but not a Word \(\.docx\) or Excel \(\.xlsx\) document/,
    );
    expect(unsupportedDocumentMessage('random.docx', randomBytes(64))).toMatch(
      /^random\.docx does not look like a Word \(\.docx\) document .* damaged or misnamed/,
    );
    expect(unsupportedDocumentMessage('notes.txt', Buffer.from('hello'))).toBe(
      'notes.txt is not a supported document; upload PDF (.pdf), Word (.docx) or Excel (.xlsx) files.',
    );
  });
});

describe('officeCoreTitle', () => {
  it('reads and decodes dc:title from docProps/core.xml', () => {
    const core = '<cp:coreProperties xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>R&amp;D  plan &#8211; 2025</dc:title></cp:coreProperties>';
    expect(officeCoreTitle(zip({ 'docProps/core.xml': core }))).toBe('R&D plan \u2013 2025');
    expect(officeCoreTitle(zip({ 'docProps/core.xml': '<dc:title></dc:title>' }))).toBeUndefined();
    expect(officeCoreTitle(zip({ 'word/document.xml': '<w/>' }))).toBeUndefined();
    expect(officeCoreTitle(randomBytes(100))).toBeUndefined();
  });
});

describe('extractDocument', () => {
  it('dispatches to the extractor of each kind', async () => {
    const fromPdf = await extractDocument('PDF', pdf);
    expect(fromPdf).toEqual({ kind: 'PDF', title: undefined, pages: 2, markdown: '## Page 1\n\nA page of text.\n\n## Page 2\n\nAnother page.' });

    const fromDocx = await extractDocument('WORD', docx);
    expect(fromDocx).toEqual({ kind: 'WORD', title: 'Memo', markdown: 'Memo text.' });

    const fromXlsx = await extractDocument('EXCEL', xlsx);
    expect(fromXlsx).toEqual({
      kind: 'EXCEL',
      title: undefined,
      sheets: 2,
      markdown: '## One\n\n| a |\n| --- |\n| 1 |\n\n## Two\n\n| b |\n| --- |\n| 2 |',
    });
  });

  it('turns random bytes and damaged files into a SourceError whatever the kind', async () => {
    const damaged = [
      ['PDF', pdf.slice(0, 300)],
      ['WORD', randomBytes(4096)],
      ['WORD', docx.subarray(0, docx.length - 200)],
      ['EXCEL', randomBytes(4096)],
      ['EXCEL', xlsx.subarray(0, xlsx.length / 2)],
    ] as const;
    for (const [kind, bytes] of damaged) {
      const failure = await extractDocument(kind, bytes).catch((error: unknown) => error);
      expect(failure, kind).toBeInstanceOf(SourceError);
    }
  });
});
