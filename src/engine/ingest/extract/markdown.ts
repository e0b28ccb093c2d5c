/**
 * The one HTML → Markdown converter of the ingestion pipeline (web pages, Confluence and Zendesk
 * bodies, Word documents): ATX headings, fenced code with its language, GitHub-flavoured tables,
 * strikethrough and task lists. HTML text is parsed with linkedom; the Markdown is written by
 * markdown/writer.ts in one walk over the nodes, which it leaves as they are.
 */
import { parseHTML } from 'linkedom';
import { writeMarkdown } from './markdown/writer.js';

type Doc = ReturnType<typeof parseHTML>['document'];
type El = NonNullable<ReturnType<Doc['querySelector']>>;

/** Markdown of HTML text, or of an element of a linkedom document. */
export function htmlToMarkdown(html: string | El): string {
  const root = typeof html === 'string' ? parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`).document.body : html;
  return writeMarkdown(root as unknown as Element)
    .replace(/^(\s*[-*+]\s+\[[x ]\]) {2,}/gm, '$1 ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The text of HTML that cannot be converted (unparsable, or nested deeper than a walk can follow). */
export function plainText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}
