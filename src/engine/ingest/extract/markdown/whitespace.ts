/**
 * White space of HTML text as a browser shows it, worked out before Markdown is written and
 * without changing the document: runs of spaces, tabs and line breaks become one space, and a
 * space is dropped where it would not show (after another space, at the start or end of a block,
 * around a line break). The rules are those turndown applied (adapted from collapse-whitespace,
 * Luc Thevenard, MIT), so that pages convert as they did. Text inside <pre> is kept as it is.
 */
import { BLOCK_ELEMENTS, ELEMENT_NODE, VOID_ELEMENTS, isAsciiSpace, isOrphanTablePart, isText } from './elements.js';

/**
 * The collapsed text of the text nodes below a root, by node. `null` marks a node that no longer
 * counts (a text left empty, a comment); nodes inside <pre> have no entry and keep their text.
 */
export type CollapsedText = Map<Node, string | null>;

export function collapseWhitespace(root: Element): CollapsedText {
  const collapse = new Collapse();
  if (root.firstChild !== null && root.localName !== 'pre') {
    collapse.children(root);
    collapse.finish();
  }
  return collapse.texts;
}

class Collapse {
  readonly texts: CollapsedText = new Map();
  /** The last text node that kept any text, while no block or line break came since. */
  private previous: Node | null = null;
  private previousText = '';
  /** After an inline void element (an image, say), a leading space shows. */
  private keepLeadingSpace = false;

  children(parent: Node): void {
    for (let node = parent.firstChild; node !== null; node = node.nextSibling) this.visit(node);
  }

  finish(): void {
    if (this.previous === null) return;
    const text = this.trimPrevious();
    if (text === '') this.texts.set(this.previous, null);
  }

  private visit(node: Node): void {
    if (isText(node)) this.text(node);
    else if (node.nodeType !== ELEMENT_NODE) this.texts.set(node, null);
    else if (isOrphanTablePart(node as Element)) this.children(node);
    else {
      // An element counts where it opens and again where it closes.
      const name = (node as Element).localName;
      this.element(name);
      if (name !== 'pre' && node.firstChild !== null) {
        this.children(node);
        this.element(name);
      }
    }
  }

  private text(node: Node): void {
    let text = collapseRuns(node.nodeValue ?? '');
    if ((this.previous === null || this.previousText.endsWith(' ')) && !this.keepLeadingSpace && text.charCodeAt(0) === 32) text = text.slice(1);
    if (text === '') {
      this.texts.set(node, null);
      return;
    }
    this.texts.set(node, text);
    this.previous = node;
    this.previousText = text;
  }

  private element(name: string): void {
    if (BLOCK_ELEMENTS.has(name) || name === 'br') {
      if (this.previous !== null) this.trimPrevious();
      this.previous = null;
      this.keepLeadingSpace = false;
    } else if (VOID_ELEMENTS.has(name)) {
      this.previous = null;
      this.keepLeadingSpace = true;
    } else if (this.previous !== null) {
      this.keepLeadingSpace = false;
    }
  }

  /** Drops the space the previous text ends with (the text stays, even if empty). */
  private trimPrevious(): string {
    const node = this.previous as Node;
    if (!this.previousText.endsWith(' ')) return this.previousText;
    this.previousText = this.previousText.slice(0, -1);
    this.texts.set(node, this.previousText);
    return this.previousText;
  }
}

/** The text with each run of spaces, tabs and line breaks made one space. */
export function collapseRuns(text: string): string {
  const length = text.length;
  let at = 0;
  // Most text has nothing to collapse: it is returned as it is.
  for (; at < length; at++) {
    const code = text.charCodeAt(at);
    if (code === 9 || code === 10 || code === 13 || (code === 32 && at + 1 < length && isAsciiSpace(text.charCodeAt(at + 1)))) break;
  }
  if (at === length) return text;
  let collapsed = text.slice(0, at);
  let from = at;
  while (from < length) {
    let end = from;
    while (end < length && isAsciiSpace(text.charCodeAt(end))) end++;
    if (end > from) {
      collapsed += ' ';
      from = end;
    }
    while (end < length && !isAsciiSpace(text.charCodeAt(end))) end++;
    collapsed += text.slice(from, end);
    from = end;
  }
  return collapsed;
}
