/** Markdown links and images, read as the text a reader sees. */

/**
 * A link `[text](destination "title")` or image `![alt](source)`, as our Markdown writer and
 * CommonMark write them: the destination bare with its parentheses escaped, or in <…>; the title
 * quoted.
 */
const LINK = /!?\[((?:\\.|[^\]\\])*)\]\((?:<(?:\\.|[^>\\\n])*>|(?:\\.|[^\s()\\])*)(?:[ \t]+"(?:\\.|[^"\\])*")?\)/g;

/** The text with each link replaced by its text and each image by its alt text (a linked image by its alt text too). */
export function linkTexts(markdown: string): string {
  if (!markdown.includes('](')) return markdown;
  // Twice: a linked image's link is found once its image is gone.
  return markdown.replace(LINK, '$1').replace(LINK, '$1');
}
