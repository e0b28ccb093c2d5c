/** Markdown links and images, read as the text a reader sees. */

/**
 * A link `[text](destination "title")` or image `![alt](source)`, as our Markdown writer and
 * CommonMark write them: the destination bare with its parentheses escaped, or in <…>; the title
 * quoted. Groups: the `!` of an image, the text, the destination.
 */
const LINK = /(!?)\[((?:\\.|[^\]\\])*)\]\((<(?:\\.|[^>\\\n])*>|(?:\\.|[^\s()\\])*)(?:[ \t]+"(?:\\.|[^"\\])*")?\)/g;

/** The text with each link replaced by its text and each image by its alt text (a linked image by its alt text too). */
export function linkTexts(markdown: string): string {
  if (!markdown.includes('](')) return markdown;
  // Twice: a linked image's link is found once its image is gone.
  return markdown.replace(LINK, '$2').replace(LINK, '$2');
}

/** A destination with a scheme (https:, mailto:) leads somewhere from anywhere; a relative one only from its page. */
const HAS_SCHEME = /^<?[a-z][a-z0-9+.-]*:/i;

/**
 * The text with each link and image whose destination is relative read as its text: a page read from
 * a local folder keeps its links to the folder's other files (`../api.html#session`), which lead
 * nowhere once quoted in an answer. Links with a scheme stay (a crawled page's links are absolute).
 */
export function withoutRelativeLinks(markdown: string): string {
  if (!markdown.includes('](')) return markdown;
  const relativeToText = (whole: string, _image: string, text: string, destination: string) => (HAS_SCHEME.test(destination) ? whole : text);
  // Twice: a linked image's link is found once its image is gone.
  return markdown.replace(LINK, relativeToText).replace(LINK, relativeToText);
}

/** The text with its links and images left out: what is written around them. */
export const withoutLinks = (markdown: string): string => (markdown.includes('](') ? markdown.replace(LINK, ' ') : markdown);

export interface MarkdownLink {
  /** As written, Markdown included. */
  readonly text: string;
  /** Unescaped, without its <…>. */
  readonly destination: string;
}

/** The links of a Markdown text (not its images), in order. */
export function* markdownLinks(markdown: string): Generator<MarkdownLink> {
  if (!markdown.includes('](')) return;
  for (const match of markdown.matchAll(LINK)) {
    if (match[1] === '!') continue;
    const written = match[3] ?? '';
    const bare = written.startsWith('<') ? written.slice(1, -1) : written;
    yield { text: match[2] ?? '', destination: bare.replace(/\\(.)/g, '$1') };
  }
}
