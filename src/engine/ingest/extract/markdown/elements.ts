/**
 * What the Markdown writer knows of HTML elements (by local name) and of the tree it reads: the
 * same element lists turndown used, so that pages convert as they did.
 */

export const TEXT_NODE = 3;
export const CDATA_SECTION_NODE = 4;
export const ELEMENT_NODE = 1;

/** Elements that stand on lines of their own. */
export const BLOCK_ELEMENTS = new Set([
  'address', 'article', 'aside', 'audio', 'blockquote', 'body', 'canvas', 'center', 'dd', 'dir', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header',
  'hgroup', 'hr', 'html', 'isindex', 'li', 'main', 'menu', 'nav', 'noframes', 'noscript', 'ol', 'output', 'p', 'pre',
  'section', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);

export const VOID_ELEMENTS = new Set([
  'area', 'base', 'br', 'col', 'command', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source',
  'track', 'wbr',
]);

/** Elements that count even without text (an empty cell still is a cell). */
export const MEANINGFUL_WHEN_BLANK = new Set(['a', 'table', 'thead', 'tbody', 'tfoot', 'th', 'td', 'iframe', 'script', 'audio', 'video']);

/** Elements whose text is never content. */
export const DROPPED_ELEMENTS = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'form', 'button']);

/** Parts of a table: outside a table they are read as their content alone. */
export const TABLE_PARTS = new Set(['thead', 'tbody', 'tfoot', 'tr', 'th', 'td']);

export function isElement(node: Node): node is Element {
  return node.nodeType === ELEMENT_NODE;
}

export function isText(node: Node): boolean {
  return node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE;
}

/** A table part that has no table around it. */
export function isOrphanTablePart(element: Element): boolean {
  return TABLE_PARTS.has(element.localName) && closestAncestor(element, 'table') === undefined;
}

/** The nearest ancestor named `name` (the whole document up, as the DOM's closest()). */
export function closestAncestor(node: Node, name: string): Element | undefined {
  for (let at = node.parentNode; at !== null; at = at.parentNode) {
    if (isElement(at) && at.localName === name) return at;
  }
  return undefined;
}

/** Whether the character is white space as JavaScript's \s and trim() take it. */
export function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || (code > 0xff && isWideSpace(code));
}

function isWideSpace(code: number): boolean {
  return code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f ||
    code === 0x3000 || code === 0xfeff;
}

/** Space, tab, carriage return or line feed: the white space HTML collapses. */
export function isAsciiSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}
