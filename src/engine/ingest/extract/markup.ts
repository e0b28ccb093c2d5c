/**
 * Markup that integrations hand over (Zendesk's HTML bodies, Confluence's storage format) as
 * Markdown; runs in the extraction workers, like web pages.
 */
import { storageToHtml } from './confluence-storage.js';
import { htmlToMarkdown, plainText } from './markdown.js';

export type MarkupFormat = 'html' | 'confluence-storage';

export function markupToMarkdown(markup: string, format: MarkupFormat): string {
  const html = format === 'confluence-storage' ? storageToHtml(markup) : markup;
  try {
    return htmlToMarkdown(html);
  } catch {
    // Markup nested too deep to walk still has text worth indexing.
    return plainText(html);
  }
}
