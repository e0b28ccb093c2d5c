/**
 * The document as the Markdown writer reads it: its own nodes, with the collapsed text of
 * whitespace.ts in place of theirs and without the nodes collapsing dropped.
 */
import { isElement, isSpace, isText } from './elements.js';
import type { CollapsedText } from './whitespace.js';

export class CollapsedTree {
  constructor(private readonly texts: CollapsedText) {}

  /** Whether the node still counts once white space is collapsed. */
  kept(node: Node): boolean {
    return this.texts.get(node) !== null;
  }

  /** A text node's text once collapsed (as it is inside <pre>). */
  text(node: Node): string {
    return this.keptText(node) ?? '';
  }

  /** A text node's text once collapsed, or null when collapsing dropped the node. */
  keptText(node: Node): string | null {
    const text = this.texts.get(node);
    return text === undefined ? (node.nodeValue ?? '') : text;
  }

  firstChild(parent: Node): Node | null {
    let node = parent.firstChild;
    while (node !== null && !this.kept(node)) node = node.nextSibling;
    return node;
  }

  nextSibling(node: Node): Node | null {
    let next = node.nextSibling;
    while (next !== null && !this.kept(next)) next = next.nextSibling;
    return next;
  }

  previousSibling(node: Node): Node | null {
    let previous = node.previousSibling;
    while (previous !== null && !this.kept(previous)) previous = previous.previousSibling;
    return previous;
  }

  childNodes(parent: Node): Node[] {
    const nodes: Node[] = [];
    for (let node = this.firstChild(parent); node !== null; node = this.nextSibling(node)) nodes.push(node);
    return nodes;
  }

  /** The element's collapsed text, as its textContent would read. */
  textContent(element: Node): string {
    let text = '';
    for (let node = nextInTree(element, element); node !== undefined; node = nextInTree(node, element)) {
      if (isText(node)) text += this.text(node);
    }
    return text;
  }

  /** The first character of the element's collapsed text, or NaN when it has none. */
  firstCharacter(element: Node): number {
    for (let node = nextInTree(element, element); node !== undefined; node = nextInTree(node, element)) {
      if (!isText(node)) continue;
      const text = this.text(node);
      if (text !== '') return text.charCodeAt(0);
    }
    return NaN;
  }

  /** The last character of the element's collapsed text, or NaN when it has none. */
  lastCharacter(element: Node): number {
    for (let node = previousInTree(element, element); node !== undefined; node = previousInTree(node, element)) {
      if (!isText(node)) continue;
      const text = this.text(node);
      if (text !== '') return text.charCodeAt(text.length - 1);
    }
    return NaN;
  }

  /** The white space the element's collapsed text starts with, and whether that is all of it. */
  leadingWhitespace(element: Node): { space: string; whole: boolean } {
    let space = '';
    for (let node = nextInTree(element, element); node !== undefined; node = nextInTree(node, element)) {
      if (!isText(node)) continue;
      const text = this.text(node);
      let at = 0;
      while (at < text.length && isSpace(text.charCodeAt(at))) at++;
      if (at < text.length) return { space: space + text.slice(0, at), whole: false };
      space += text;
    }
    return { space, whole: true };
  }

  /** The white space the element's collapsed text ends with (for text that is not all white space). */
  trailingWhitespace(element: Node): string {
    let space = '';
    for (let node = previousInTree(element, element); node !== undefined; node = previousInTree(node, element)) {
      if (!isText(node)) continue;
      const text = this.text(node);
      let at = text.length;
      while (at > 0 && isSpace(text.charCodeAt(at - 1))) at--;
      if (at > 0) return text.slice(at) + space;
      space = text + space;
    }
    return space;
  }

  /** Whether only white space lies below the element, and no element that counts without text. */
  isBlankBelow(element: Node, counts: (element: Element) => boolean): boolean {
    for (let node = nextInTree(element, element); node !== undefined; node = nextInTree(node, element)) {
      if (isText(node)) {
        const text = node.nodeValue ?? '';
        for (let at = 0; at < text.length; at++) if (!isSpace(text.charCodeAt(at))) return false;
      } else if (isElement(node) && counts(node)) {
        return false;
      }
    }
    return true;
  }

  /** The first element below `root` named `name`, in document order. */
  firstDescendant(root: Node, name: string): Element | undefined {
    for (let node = nextInTree(root, root); node !== undefined; node = nextInTree(node, root)) {
      if (isElement(node) && node.localName === name) return node;
    }
    return undefined;
  }
}

/** The node after `node` in document order, within `root`. */
export function nextInTree(node: Node, root: Node): Node | undefined {
  if (node.firstChild !== null) return node.firstChild;
  for (let at: Node | null = node; at !== null && at !== root; at = at.parentNode) {
    if (at.nextSibling !== null) return at.nextSibling;
  }
  return undefined;
}

/** The node before `node` in reverse document order (last descendants first), within `root`. */
function previousInTree(node: Node, root: Node): Node | undefined {
  if (node.lastChild !== null) return node.lastChild;
  for (let at: Node | null = node; at !== null && at !== root; at = at.parentNode) {
    if (at.previousSibling !== null) return at.previousSibling;
  }
  return undefined;
}
