/**
 * A fetched web page, as its bytes came, turned into a title and Markdown: decoded by its
 * charset, then HTML through the content extractor, plain text and Markdown as they are. Runs in
 * the extraction workers, so that the thread serving requests neither decodes nor parses pages.
 */
import { decodeBody } from '../../../net/charset.js';
import { looksLikeHtml } from '../files.js';
import { extractHtml, type ExtractedHtml } from './html.js';

export interface WebPage {
  /** Final URL after redirects. */
  readonly url: string;
  /** Lower-case, no parameters ('' when the server named no type). */
  readonly mimeType: string;
  /** The Content-Type header as sent, for its charset. */
  readonly contentType: string | undefined;
  readonly body: Uint8Array;
}

const HTML_TYPES = ['text/html', 'application/xhtml+xml'];

export function extractPage(page: WebPage): ExtractedHtml {
  const body = Buffer.from(page.body.buffer, page.body.byteOffset, page.body.byteLength);
  const text = decodeBody(body, page.contentType, page.mimeType);
  if (HTML_TYPES.includes(page.mimeType) || (page.mimeType === '' && looksLikeHtml(text))) return extractHtml(text, page.url);
  return { title: firstHeading(text) ?? fileName(page.url), markdown: text.trim() };
}

/** The text of the first Markdown heading (ATX `# Title` or setext `Title` over `===`). */
function firstHeading(text: string): string | undefined {
  const heading = /^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$|^ {0,3}(\S.*?)[ \t]*\r?\n {0,3}(?:=+|-+)[ \t]*$/m.exec(text);
  const title = (heading?.[1] ?? heading?.[2])?.trim();
  return title === '' ? undefined : title;
}

/** The last segment of the URL's path, decoded, else its host. */
function fileName(url: string): string {
  const { pathname, host } = new URL(url);
  const segment = pathname.split('/').filter((part) => part !== '').at(-1);
  if (segment === undefined) return host;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
