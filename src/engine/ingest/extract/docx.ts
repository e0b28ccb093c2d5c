/**
 * Text of a Word (.docx) document as Markdown: mammoth turns the document into semantic HTML
 * (headings, lists, tables, bold and italics) and the one HTML converter of the pipeline turns
 * that into Markdown. Images are left out; mammoth's warnings (unknown styles and the like) are
 * not errors.
 */
import { SourceError } from '../sources/types.js';
import { officeCoreTitle } from './document.js';

export interface DocxExtraction {
  readonly title: string | undefined;
  readonly markdown: string;
}

export async function extractDocx(data: Uint8Array): Promise<DocxExtraction> {
  const [{ default: mammoth }, { htmlToMarkdown }] = await Promise.all([import('mammoth'), import('./markdown.js')]);
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(data.buffer, data.byteOffset, data.byteLength) },
      {
        styleMap: ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => p:fresh"],
        // No src, no image: the converter writes nothing for it, and no picture is decoded.
        convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })),
        ignoreEmptyParagraphs: true,
        externalFileAccess: false,
        transformDocument: (document: unknown) => plainTables(document as DocxElement),
      },
    );
    html = result.value;
  } catch (error) {
    throw new SourceError(
      'The file could not be read as a Word (.docx) document; it may be damaged, or be another format with a .docx name. ' +
        'Open it in Word, save it as .docx and upload it again.',
      { cause: error },
    );
  }
  // Paragraphs of a table cell come out a blank line apart, which in a table row is one <br> too many.
  const markdown = htmlToMarkdown(html).replace(/^\|.*$/gm, (row) => row.replace(/(?:<br>){2,}/g, '<br>'));
  if (markdown === '') throw new SourceError('The Word document has no text to index.');
  return { title: officeCoreTitle(data) ?? firstHeading(markdown), markdown };
}

function firstHeading(markdown: string): string | undefined {
  const match = /^#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/m.exec(markdown);
  const heading = match?.[1]?.replace(/^(\*\*|__|\*|_)(.+)\1$/, '$2').trim();
  return heading === undefined || heading === '' ? undefined : heading;
}

// --- mammoth's document model, as far as it is touched here.

interface DocxElement {
  readonly type: string;
  children?: DocxElement[];
  /** Table rows. */
  isHeader?: boolean;
  /** Paragraphs. */
  styleId?: string | null;
  styleName?: string | null;
  numbering?: unknown;
  /** Text. */
  value?: string;
}

/**
 * Makes Word tables come out as Markdown tables: the first row heads the table when Word marks
 * none, and paragraphs in cells lose heading and list styles, so that a cell reads as its lines of
 * text (a cell of several paragraphs makes the table a list of its rows, see
 * markdown/block-tables.ts); list items in cells keep a bullet.
 */
function plainTables(element: DocxElement, inCell = false): DocxElement {
  if (element.type === 'table') {
    const rows = (element.children ?? []).filter((child) => child.type === 'tableRow');
    const first = rows[0];
    if (first !== undefined && !rows.some((row) => row.isHeader === true)) first.isHeader = true;
  }
  if (inCell && element.type === 'paragraph') {
    if (element.numbering) prefixFirstText(element, '• ');
    element.numbering = null;
    element.styleId = null;
    element.styleName = null;
  }
  for (const child of element.children ?? []) plainTables(child, inCell || element.type === 'tableCell');
  return element;
}

function prefixFirstText(element: DocxElement, prefix: string): boolean {
  if (element.type === 'text' && typeof element.value === 'string') {
    element.value = prefix + element.value;
    return true;
  }
  return (element.children ?? []).some((child) => prefixFirstText(child, prefix));
}
