/**
 * Markup that integrations hand over (Zendesk's HTML bodies, Confluence's storage format) as
 * Markdown; runs in the extraction workers, like web pages.
 */
import { storageToHtml } from './confluence-storage.js';
import { htmlToMarkdown } from './markdown.js';

export type MarkupFormat = 'html' | 'confluence-storage';

export function markupToMarkdown(markup: string, format: MarkupFormat): string {
  return htmlToMarkdown(format === 'confluence-storage' ? storageToHtml(markup) : markup);
}
