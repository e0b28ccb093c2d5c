/**
 * Passages that are lists of links: a generated index ("abort() (in module flask)", one link a
 * line), a module index (a table of links), an A–Z bar, a table of contents. They name where the
 * answers are and hold none, so answers do not quote them and follow-ups are not made from them.
 * Recognised by their structure, never by a page's name: most of their text is link text, in short
 * entries, with hardly a sentence around them.
 */
import { linkTexts, markdownLinks, withoutLinks } from './links.js';

/** A passage with fewer links is text that links, not a list of links, */
const MIN_LINKS = 3;
/** unless it is nothing but them (an index letter with one or two entries). */
const ONLY_LINKS_SHARE = 0.9;
/** The share of the passage's words that are link text, from which it is a list of links. */
const MIN_LINK_SHARE = 0.6;
/** An entry of an index or a table of contents is a name, a few words; a longer link text is prose made a link. */
const MAX_ENTRY_WORDS = 8;
/** Sentences outside the links that a list of links may have around it (a line of introduction). */
const MAX_SENTENCES = 2;

/** A word; `access_control` (written `access\_control` in Markdown) is one. */
const WORD = /[\p{L}\p{N}]+(?:\\?_+[\p{L}\p{N}]+)*/gu;
/** The end of a sentence: a word, then `.`, `!` or `?` and a space or the end. */
const SENTENCE_END = /[\p{L}\p{N})][.!?](?=\s|$)/gu;

const wordsIn = (text: string): number => text.match(WORD)?.length ?? 0;

/** Whether the Markdown text is a list of links rather than text that answers anything. */
export function isLinkList(markdown: string): boolean {
  if (!markdown.includes('](') || markdown.includes('```')) return false;
  let links = 0;
  let linkWords = 0;
  for (const link of markdownLinks(markdown)) {
    const words = wordsIn(linkTexts(link.text));
    if (words === 0) continue;
    links++;
    linkWords += words;
  }
  if (links === 0 || linkWords / links > MAX_ENTRY_WORDS) return false;
  const allWords = wordsIn(linkTexts(markdown));
  const share = linkWords / Math.max(allWords, 1);
  if (share < (links < MIN_LINKS ? ONLY_LINKS_SHARE : MIN_LINK_SHARE)) return false;
  // The prose around the links: a few lines of it still make a page that answers.
  return (withoutLinks(markdown).match(SENTENCE_END)?.length ?? 0) <= MAX_SENTENCES;
}
