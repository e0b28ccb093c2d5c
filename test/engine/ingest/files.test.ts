/** The one rule for files and texts from a caller's disk: what each is, from its bytes and its name. */
import { describe, expect, it } from 'vitest';
import { fileKindOf, textKindOf } from '../../../src/engine/ingest/files.js';
import { reportPdf } from '../../support/documents.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('fileKindOf', () => {
  it('reads HTML by its extension or by how it starts, Markdown and other text as text', () => {
    expect(fileKindOf('guide/quickstart.html', bytes('<p>Hi</p>'))).toEqual({ kind: 'html', text: '<p>Hi</p>' });
    expect(fileKindOf('page', bytes('  <!DOCTYPE html><html><body>Hi</body></html>'))).toMatchObject({ kind: 'html' });
    expect(fileKindOf('README.md', bytes('# Title\n\n<div>inline HTML stays Markdown</div>\n'))).toMatchObject({ kind: 'text' });
    expect(fileKindOf('notes', bytes('plain words'))).toEqual({ kind: 'text', text: 'plain words' });
  });

  it('decodes UTF-16 by its byte-order mark and older files as Windows-1252', () => {
    const utf16 = new Uint8Array([0xff, 0xfe, ...[...'Olá'].flatMap((char) => [char.charCodeAt(0), 0])]);
    expect(fileKindOf('notes.txt', utf16)).toEqual({ kind: 'text', text: 'Olá' });
    expect(fileKindOf('notes.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]))).toEqual({ kind: 'text', text: 'café' });
  });

  it('takes PDF, Word and Excel by their bytes, whatever their name', async () => {
    expect(fileKindOf('report', await reportPdf())).toEqual({ kind: 'document', document: 'PDF' });
  });

  it('refuses images, binary files and other office formats with the reason', () => {
    expect(fileKindOf('logo.svg', bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toEqual({ kind: 'refused', reason: expect.stringContaining('logo.svg is an image') });
    expect(fileKindOf('blob', new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]))).toEqual({ kind: 'refused', reason: expect.stringContaining('blob is not text') });
    expect(fileKindOf('a/notes.odt', bytes('hello'))).toEqual({ kind: 'refused', reason: expect.stringContaining('notes.odt is not a supported document') });
    expect(fileKindOf('bundle.zip', bytes('PK\x03\x04rest'))).toMatchObject({ kind: 'refused', reason: expect.stringContaining('bundle.zip is a ZIP archive') });
  });
});

describe('textKindOf', () => {
  it('is html for an .htm name or a text that starts as an HTML document', () => {
    expect(textKindOf('page.HTM', 'words')).toBe('html');
    expect(textKindOf('Quickstart', '<html lang="en"><body>x</body></html>')).toBe('html');
    expect(textKindOf('Notes', 'Use <b>bold</b> sparingly.')).toBe('text');
  });
});
