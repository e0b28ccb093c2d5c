/**
 * Uploaded documents: tells PDF, Word (.docx) and Excel (.xlsx) files apart by their bytes and
 * hands them to the matching extractor. Extractors and their libraries are imported on first use,
 * so importing this module costs nothing at start-up.
 */
import { inflateRawSync } from 'node:zlib';

export type DocumentKind = 'PDF' | 'WORD' | 'EXCEL';

/** What an extractor makes of one document: Markdown for the chunker, with what it tells of itself. */
export type ExtractedDocument =
  | { readonly kind: 'PDF'; readonly title: string | undefined; readonly markdown: string; readonly pages: number }
  | { readonly kind: 'WORD'; readonly title: string | undefined; readonly markdown: string }
  | { readonly kind: 'EXCEL'; readonly title: string | undefined; readonly markdown: string; readonly sheets: number };

/**
 * The kind of a document, from its magic bytes: `%PDF-`, or a ZIP package whose central directory
 * names `[Content_Types].xml` and `word/` or `xl/` parts. The file name's extension only settles
 * what the bytes leave open (a package with both, or a ZIP whose directory cannot be read).
 * `undefined` for anything else, legacy OLE .doc/.xls files included; see
 * `unsupportedDocumentMessage` for what to tell the user.
 */
export function documentKindOf(fileName: string, data: Uint8Array): DocumentKind | undefined {
  if (hasPdfHeader(data)) return 'PDF';
  if (!startsWith(data, ZIP_LOCAL_HEADER)) return undefined;
  const byExtension = packageKindOfExtension(extensionOf(fileName));
  const names = zipEntryNames(data);
  if (names === undefined) return byExtension;
  let contentTypes = false;
  let word = false;
  let excel = false;
  for (const name of names) {
    if (name === '[Content_Types].xml') contentTypes = true;
    else if (name.startsWith('word/')) word = true;
    else if (name.startsWith('xl/')) excel = true;
  }
  if (!contentTypes) return undefined;
  if (word && excel) return byExtension;
  if (word) return 'WORD';
  if (excel) return 'EXCEL';
  return undefined;
}

/** Why `documentKindOf` found no kind for a file, and what to do instead. */
export function unsupportedDocumentMessage(fileName: string, data: Uint8Array): string {
  const name = fileName.split(/[\\/]/).pop() ?? fileName;
  const extension = extensionOf(fileName);
  if (startsWith(data, OLE_HEADER)) {
    return `${name} is a legacy Office file (Word 97-2003 .doc, Excel 97-2003 .xls) or a password-protected ` +
      'Office document, which cannot be read; save it as .docx or .xlsx without a password and upload it again.';
  }
  if (startsWith(data, ZIP_LOCAL_HEADER)) {
    return `${name} is a ZIP archive but not a Word (.docx) or Excel (.xlsx) document; ` +
      'only PDF, Word (.docx) and Excel (.xlsx) documents can be uploaded.';
  }
  const expected = EXPECTED_FORMAT[extension];
  if (expected !== undefined) {
    return `${name} does not look like ${expected} (its contents do not match the extension); ` +
      'it may be damaged or misnamed. Export it again and upload the new file.';
  }
  return `${name} is not a supported document; upload PDF (.pdf), Word (.docx) or Excel (.xlsx) files.`;
}

/** Extracts a document of a known kind; content problems throw a `SourceError`. */
export async function extractDocument(kind: DocumentKind, data: Uint8Array): Promise<ExtractedDocument> {
  switch (kind) {
    case 'PDF': {
      const { extractPdf } = await import('./pdf.js');
      return { kind, ...(await extractPdf(data)) };
    }
    case 'WORD': {
      const { extractDocx } = await import('./docx.js');
      return { kind, ...(await extractDocx(data)) };
    }
    case 'EXCEL': {
      const { extractXlsx } = await import('./xlsx.js');
      return { kind, ...(await extractXlsx(data)) };
    }
  }
}

/** The title in an Office package's core properties (docProps/core.xml), if it has one. */
export function officeCoreTitle(data: Uint8Array): string | undefined {
  const xml = readZipEntry(data, 'docProps/core.xml', 1024 * 1024)?.toString('utf8');
  const match = xml === undefined ? null : /<dc:title(?:\s[^>]*)?>([^<]*)<\/dc:title>/.exec(xml);
  const title = match?.[1] === undefined ? '' : decodeXmlText(match[1]).replace(/\s+/g, ' ').trim();
  return title === '' ? undefined : title;
}

const PDF_HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const ZIP_LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
const OLE_HEADER = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const EXPECTED_FORMAT: Readonly<Record<string, string>> = {
  '.pdf': 'a PDF document',
  '.docx': 'a Word (.docx) document',
  '.xlsx': 'an Excel (.xlsx) workbook',
};

function packageKindOfExtension(extension: string): DocumentKind | undefined {
  if (['.docx', '.docm', '.dotx', '.dotm'].includes(extension)) return 'WORD';
  if (['.xlsx', '.xlsm', '.xltx', '.xltm'].includes(extension)) return 'EXCEL';
  return undefined;
}

function extensionOf(fileName: string): string {
  const match = /\.[^./\\]+$/.exec(fileName);
  return match === null ? '' : match[0].toLowerCase();
}

function startsWith(data: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (data.length < at + prefix.length) return false;
  return prefix.every((byte, index) => data[at + index] === byte);
}

// Readers accept the header anywhere in the first kilobyte, after junk some producers write.
function hasPdfHeader(data: Uint8Array): boolean {
  const end = Math.min(data.length - PDF_HEADER.length, 1024);
  for (let at = 0; at <= end; at++) {
    if (data[at] === PDF_HEADER[0] && startsWith(data, PDF_HEADER, at)) return true;
  }
  return false;
}

function decodeXmlText(text: string): string {
  return text.replace(/&(?:#x([0-9a-f]+)|#(\d+)|(amp|lt|gt|quot|apos));/gi, (entity, hex?: string, decimal?: string, name?: string) => {
    if (name !== undefined) return XML_ENTITIES[name.toLowerCase()] ?? entity;
    const codePoint = Number.parseInt(hex ?? decimal ?? '', hex === undefined ? 10 : 16);
    return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : entity;
  });
}

const XML_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

// --- ZIP central directory (APPNOTE.TXT 4.3.12 - 4.3.16), read in place without copying the archive.

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const UNKNOWN_32 = 0xffffffff;

/** The archive's entry names, or undefined when its central directory cannot be read. */
function zipEntryNames(data: Uint8Array): string[] | undefined {
  const entries = zipEntries(data);
  return entries?.map((entry) => entry.name);
}

function readZipEntry(data: Uint8Array, name: string, maxBytes: number): Buffer | undefined {
  const entry = zipEntries(data)?.find((candidate) => candidate.name === name);
  if (entry === undefined || entry.compressedSize === UNKNOWN_32 || entry.localHeaderOffset === UNKNOWN_32) return undefined;
  const view = dataView(data);
  const at = entry.localHeaderOffset;
  if (at + 30 > data.length || view.getUint32(at, true) !== LOCAL_SIGNATURE) return undefined;
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > data.length) return undefined;
  const stored = Buffer.from(data.buffer, data.byteOffset + start, entry.compressedSize);
  try {
    if (entry.method === 0) return stored.length <= maxBytes ? stored : undefined;
    if (entry.method === 8) return inflateRawSync(stored, { maxOutputLength: maxBytes });
  } catch {
    // A damaged or oversized part reads as missing; the extractor reports on the document itself.
  }
  return undefined;
}

function zipEntries(data: Uint8Array): ZipEntry[] | undefined {
  const directory = centralDirectory(data);
  if (directory === undefined) return undefined;
  const view = dataView(data);
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  let at = directory.offset;
  for (let index = 0; index < directory.count; index++) {
    if (at + 46 > data.length || view.getUint32(at, true) !== CENTRAL_SIGNATURE) return undefined;
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    if (at + 46 + nameLength > data.length) return undefined;
    entries.push({
      name: decoder.decode(data.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      localHeaderOffset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function centralDirectory(data: Uint8Array): { offset: number; count: number } | undefined {
  const view = dataView(data);
  // The end record is the last 22 bytes, unless an archive comment (at most 65,535 bytes) follows it.
  const lowest = Math.max(0, data.length - 22 - 0xffff);
  for (let at = data.length - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) !== EOCD_SIGNATURE) continue;
    let count = view.getUint16(at + 10, true);
    let offset = view.getUint32(at + 16, true);
    if ((count === 0xffff || offset === UNKNOWN_32) && at >= 20 && view.getUint32(at - 20, true) === ZIP64_LOCATOR_SIGNATURE) {
      const zip64 = Number(view.getBigUint64(at - 12, true));
      if (zip64 + 56 > data.length || view.getUint32(zip64, true) !== ZIP64_EOCD_SIGNATURE) return undefined;
      count = Number(view.getBigUint64(zip64 + 32, true));
      offset = Number(view.getBigUint64(zip64 + 48, true));
    }
    return offset < data.length ? { offset, count } : undefined;
  }
  return undefined;
}

function dataView(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}
