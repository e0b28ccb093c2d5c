/**
 * The links a page makes to other pages of its site, by the words they are made with (anchor
 * text): what other pages call a page says what it is about, often in other words than its own.
 * Answers weigh it (src/engine/answer/evidence.ts). Links that say nothing of their target are left
 * out: a bare address or file name, an image, words without a letter.
 */
import type { NewLink } from '../store/links.js';
import { markdownLinks } from '../text/links.js';

/** Anchor text is a few words; a longer one is a paragraph made a link, not a name. */
const MAX_TEXT_CHARS = 200;
/** A page links to at most this many pages by as many names (an index page links to every page). */
const MAX_LINKS = 2_000;

/** Link text as a reader reads it: Markdown escapes, emphasis and code ticks gone. */
const readable = (text: string): string =>
  text
    .replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1')
    .replace(/[*`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();

const pageOf = (url: URL): string => url.href.slice(0, url.href.length - url.hash.length);

/** A text that only repeats an address: a URL, or a file name. */
const BARE = /^(?:https?:\/\/|www\.)|^[\w./-]+\.(?:html?|php|aspx?|txt|pdf|md)$/i;

/** The page's links to other pages of its origin, each (target, words) once. */
export function linksOf(markdown: string, pageUrl: string): NewLink[] {
  if (!URL.canParse(pageUrl)) return [];
  const page = new URL(pageUrl);
  const self = pageOf(page);
  const seen = new Set<string>();
  const links: NewLink[] = [];
  for (const link of markdownLinks(markdown)) {
    if (links.length === MAX_LINKS) break;
    const target = URL.canParse(link.destination, page) ? new URL(link.destination, page) : undefined;
    if (!target || target.origin !== page.origin || pageOf(target) === self) continue;
    // A linked image is read as a link whose text starts with the image: an image says nothing.
    if (link.text.includes('![')) continue;
    const text = readable(link.text);
    if (text.length > MAX_TEXT_CHARS || text.includes('](') || !/\p{L}/u.test(text) || BARE.test(text)) continue;
    const key = `${pageOf(target)}\u0000${text.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    links.push({ target: pageOf(target), text });
  }
  return links;
}
