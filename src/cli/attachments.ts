/**
 * `ask --attach FILE`: a file's kind told by its content, not its name. A PDF (`%PDF-`) goes as a
 * PDF, an image (PNG, JPEG, GIF, WebP, BMP, TIFF, AVIF) as an image with its MIME type, other
 * valid UTF-8 text without NUL bytes as a log file; anything else is refused before the question
 * is sent.
 */
import type { AskInput } from '../core/schemas.js';
import { CommandFailure } from './failures.js';
import type { ReadFile } from './input.js';

type Attachments = Pick<AskInput, 'images' | 'log_files' | 'pdf_files'>;

const startsWith = (data: Uint8Array, at: number, ...bytes: number[]) => bytes.every((byte, i) => data[at + i] === byte);
const ascii = (data: Uint8Array, at: number, text: string) => startsWith(data, at, ...Buffer.from(text, 'latin1'));

/** Image formats by their magic bytes. */
const IMAGE_TYPES: readonly { readonly mime: string; readonly matches: (data: Uint8Array) => boolean }[] = [
  { mime: 'image/png', matches: (data) => startsWith(data, 0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a) },
  { mime: 'image/jpeg', matches: (data) => startsWith(data, 0, 0xff, 0xd8, 0xff) },
  { mime: 'image/gif', matches: (data) => ascii(data, 0, 'GIF87a') || ascii(data, 0, 'GIF89a') },
  { mime: 'image/webp', matches: (data) => ascii(data, 0, 'RIFF') && ascii(data, 8, 'WEBP') },
  { mime: 'image/bmp', matches: (data) => ascii(data, 0, 'BM') && data.length > 14 },
  { mime: 'image/tiff', matches: (data) => startsWith(data, 0, 0x49, 0x49, 0x2a, 0x00) || startsWith(data, 0, 0x4d, 0x4d, 0x00, 0x2a) },
  { mime: 'image/avif', matches: (data) => ascii(data, 4, 'ftypavif') || ascii(data, 4, 'ftypavis') },
];

const imageTypeOf = (data: Uint8Array): string | undefined => IMAGE_TYPES.find((type) => type.matches(data))?.mime;

function utf8Text(data: Uint8Array): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}

const dataUrl = (mime: string, data: Uint8Array) => `data:${mime};base64,${Buffer.from(data).toString('base64')}`;

/** The ask fields for the files, each placed by its content; a failure names a file that fits none. */
export function attachmentsOf(files: readonly ReadFile[]): Attachments {
  const images: NonNullable<Attachments['images']> = [];
  const logs: NonNullable<Attachments['log_files']> = [];
  const pdfs: NonNullable<Attachments['pdf_files']> = [];
  for (const file of files) {
    if (ascii(file.data, 0, '%PDF-')) {
      pdfs.push({ name: file.name, type: 'application/pdf', data: dataUrl('application/pdf', file.data) });
      continue;
    }
    const image = imageTypeOf(file.data);
    if (image !== undefined) {
      images.push({ name: file.name, type: image, data: dataUrl(image, file.data) });
      continue;
    }
    const text = utf8Text(file.data);
    if (text === undefined) {
      throw new CommandFailure(
        `cannot attach ${file.name}: it is neither a PDF, an image (PNG, JPEG, GIF, WebP, BMP, TIFF, AVIF) nor UTF-8 text`,
        'Attach PDFs, images and text files such as logs.',
      );
    }
    logs.push({ name: file.name, data: text });
  }
  return {
    ...(images.length > 0 ? { images } : {}),
    ...(logs.length > 0 ? { log_files: logs } : {}),
    ...(pdfs.length > 0 ? { pdf_files: pdfs } : {}),
  };
}
