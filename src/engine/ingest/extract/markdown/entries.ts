/**
 * Definition lists whose entries are described — a term and what it is, as reference pages list
 * functions, settings and options — read as entries: each is written as a heading of its own, so
 * that the chunker makes it a section and a question finds the entry rather than a passing mention
 * of its term. Lists that only point elsewhere (tables of contents: a linked term over a nested
 * list) stay as they are.
 */
import { isElement, isText } from './elements.js';
import type { CollapsedTree } from './tree.js';

/** One entry: its terms (several <dt> may share a description) and its descriptions. */
export interface Entry {
  readonly terms: readonly Element[];
  readonly descriptions: readonly Element[];
}

/** The longest term, in characters of text, that is still a name rather than a passage. */
export const MAX_TERM_CHARS = 120;

/** Elements around a list whose Markdown cannot hold a heading. */
const NO_HEADINGS_INSIDE = new Set(['li', 'td', 'th', 'blockquote', 'pre', 'table']);

/** Text that the description holds on its own, not in links or in lists nested in it. */
const NOT_OWN_TEXT = new Set(['a', 'ul', 'ol', 'dl', 'menu', 'nav']);

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * The entries of a <dl> when every one is described, with a short term; undefined for any other
 * list, and for a list where a heading cannot stand (in a list item, a table or a quote).
 */
export function describedEntries(list: Element, tree: CollapsedTree): Entry[] | undefined {
  for (let at = list.parentNode; at !== null; at = at.parentNode) {
    if (isElement(at) && NO_HEADINGS_INSIDE.has(at.localName)) return undefined;
  }
  const items: Element[] = [];
  if (!collectItems(list, tree, items)) return undefined;
  const entries: { terms: Element[]; descriptions: Element[] }[] = [];
  for (const item of items) {
    const last = entries[entries.length - 1];
    if (item.localName === 'dt') {
      if (!isShortTerm(item, tree)) return undefined;
      if (last !== undefined && last.descriptions.length === 0) last.terms.push(item);
      else entries.push({ terms: [item], descriptions: [] });
    } else {
      if (last === undefined || !hasOwnText(item, tree)) return undefined;
      last.descriptions.push(item);
    }
  }
  if (entries.length === 0 || entries.some((entry) => entry.descriptions.length === 0)) return undefined;
  return entries;
}

/**
 * The <dt> and <dd> of the list in order, through the <div> that may group them; false when the
 * list holds anything else that shows (text, or another element with text).
 */
function collectItems(parent: Element, tree: CollapsedTree, items: Element[]): boolean {
  for (const node of tree.childNodes(parent)) {
    if (isText(node)) {
      if (tree.text(node).trim() !== '') return false;
    } else if (isElement(node)) {
      const name = node.localName;
      if (name === 'dt' || name === 'dd') items.push(node);
      else if (name === 'div') {
        if (!collectItems(node, tree, items)) return false;
      } else if (tree.textContent(node).trim() !== '') return false;
    }
  }
  return true;
}

function isShortTerm(term: Element, tree: CollapsedTree): boolean {
  const text = tree.textContent(term).trim();
  return text !== '' && text.length <= MAX_TERM_CHARS;
}

/** Whether the description says something itself: a word outside its links and nested lists. */
function hasOwnText(description: Element, tree: CollapsedTree): boolean {
  for (let node = description.firstChild; node !== null; node = node.nextSibling) {
    if (isText(node)) {
      if (WORD_CHARACTER.test(tree.text(node))) return true;
    } else if (isElement(node) && !NOT_OWN_TEXT.has(node.localName) && hasOwnText(node, tree)) {
      return true;
    }
  }
  return false;
}

/**
 * The Markdown of a term as one heading line: its lines joined, and without the bold that a term
 * is often set in (a heading is bold already).
 */
export function termHeading(markdown: string): string {
  const line = markdown.replace(/\s*\n\s*/g, ' ').trim();
  const bold = /^\*\*(.*)\*\*$/.exec(line);
  return bold?.[1] !== undefined && !bold[1].includes('**') ? bold[1] : line;
}
