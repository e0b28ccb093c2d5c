/**
 * What a file or a text from a caller's disk is, and so how it is read: the one rule for every
 * surface that adds local files or texts (the CLI's add and upload, REST, MCP add_sources, the web
 * interface's upload). PDF, Word and Excel files are documents; HTML goes through the extraction
 * web pages get; Markdown and other text is kept as it is; images and other binary files are
 * refused with the reason. The kind comes from the bytes first, the name's extension after.
 */
import { documentKindOf, unsupportedDocumentMessage, type DocumentKind } from './extract/document.js';

export type TextKind = 'html' | 'text';

export type FileKind =
  | { readonly kind: TextKind; readonly text: string }
  | { readonly kind: 'document'; readonly document: DocumentKind }
  | { readonly kind: 'refused'; readonly reason: string };

const HTML_EXTENSIONS = new Set(['.html', '.htm', '.xhtml', '.shtml']);

/** Text formats that are pictures, not prose to answer from. */
const IMAGE_EXTENSIONS = new Set(['.svg', '.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.ico', '.tif', '.tiff', '.avif', '.heic']);

/** Office and document formats other than PDF, .docx and .xlsx: refused with the upload's reasons, whatever their bytes. */
const OTHER_DOCUMENT_EXTENSIONS = new Set(['.pdf', '.docx', '.xlsx', '.doc', '.xls', '.ppt', '.pptx', '.odt', '.ods', '.odp', '.rtf', '.pages', '.numbers', '.key', '.epub']);

/** Archives, media, fonts, programs and databases: never text to add, even when their bytes happen to decode. */
const BINARY_EXTENSIONS = new Set([
  '.zip', '.gz', '.tgz', '.bz2', '.xz', '.7z', '.rar', '.tar', '.jar', '.war', '.exe', '.dll', '.so', '.dylib', '.bin', '.class', '.wasm', '.o', '.a',
  '.mp3', '.mp4', '.m4a', '.mov', '.avi', '.mkv', '.webm', '.wav', '.flac', '.ogg', '.ttf', '.otf', '.woff', '.woff2', '.eot', '.psd', '.sqlite', '.db',
]);

/** Whether text with no declared type is an HTML document, by how it starts. */
export function looksLikeHtml(text: string): boolean {
  return /^\s*(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text.slice(0, 1024));
}

/** A text is HTML when its name says so or when it starts as an HTML document does. */
export function textKindOf(name: string, text: string): TextKind {
  return HTML_EXTENSIONS.has(extensionOf(name)) || looksLikeHtml(text) ? 'html' : 'text';
}

/** What a file is, from its bytes and its name; a refusal says why it cannot be added. */
export function fileKindOf(name: string, data: Uint8Array): FileKind {
  const document = documentKindOf(name, data);
  if (document !== undefined) return { kind: 'document', document };
  const extension = extensionOf(name);
  const base = name.split(/[\\/]/).pop() ?? name;
  if (IMAGE_EXTENSIONS.has(extension)) return { kind: 'refused', reason: `${base} is an image, not a supported document; images have no text to add.` };
  const text = BINARY_EXTENSIONS.has(extension) || OTHER_DOCUMENT_EXTENSIONS.has(extension) ? undefined : textOf(data);
  if (text === undefined) {
    // A misnamed or damaged document, another office format, an archive: the upload's own reasons.
    if (OTHER_DOCUMENT_EXTENSIONS.has(extension) || isZip(data) || isOle(data)) return { kind: 'refused', reason: unsupportedDocumentMessage(name, data) };
    return {
      kind: 'refused',
      reason: `${base} is not text (an image, archive or other binary file); add text, Markdown, HTML, PDF, Word (.docx) or Excel (.xlsx) files.`,
    };
  }
  return { kind: textKindOf(name, text), text };
}

/**
 * The file as text, or undefined when it is not text (NUL bytes: images, archives, programs).
 * UTF-16 by its byte-order mark, UTF-8 when it is valid UTF-8, else Windows-1252, as older text
 * files are written.
 */
function textOf(data: Uint8Array): string | undefined {
  const utf16 = data[0] === 0xff && data[1] === 0xfe ? 'utf-16le' : data[0] === 0xfe && data[1] === 0xff ? 'utf-16be' : undefined;
  if (utf16 !== undefined) return new TextDecoder(utf16).decode(data);
  if (data.subarray(0, 8192).includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return new TextDecoder('windows-1252').decode(data);
  }
}

const isZip = (data: Uint8Array): boolean => data[0] === 0x50 && data[1] === 0x4b;
const isOle = (data: Uint8Array): boolean => data[0] === 0xd0 && data[1] === 0xcf && data[2] === 0x11 && data[3] === 0xe0;

function extensionOf(name: string): string {
  const match = /\.[^./\\]+$/.exec(name);
  return match === null ? '' : match[0].toLowerCase();
}
