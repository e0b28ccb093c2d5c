/**
 * Parses a web page into a document of <html>, <head> and <body>, as a browser would. HTML lets a
 * page leave out all three tags (`<!doctype html><title>…</title><h1>…`), and a browser puts what
 * follows the head's elements into the body; linkedom builds no such structure, and its `body`
 * of such a page is a new, empty element.
 */
import { parseHTML } from 'linkedom';

type Doc = ReturnType<typeof parseHTML>['document'];
type El = NonNullable<ReturnType<Doc['querySelector']>>;
type TreeNode = ChildNode | El;

/** Elements that stay in the head when the page leaves its <head> or <body> tags out. */
const HEAD_ELEMENTS = new Set(['base', 'basefont', 'bgsound', 'link', 'meta', 'noscript', 'script', 'style', 'template', 'title']);

export function parseDocument(html: string): Doc {
  const { document } = parseHTML(html);
  const root = document.documentElement;
  const htmlElement = root?.localName === 'html' ? root : document.createElement('html');
  const [first, second, ...more] = Array.from(htmlElement.children);
  const wellFormed =
    htmlElement === root && document.children.length === 1 && first?.localName === 'head' && second?.localName === 'body' && more.length === 0;
  if (wellFormed) return document;

  // In document order: what is outside <html> (content after </html> belongs to the body too), and what is inside.
  const nodes: TreeNode[] = Array.from(document.childNodes).flatMap((node): TreeNode[] =>
    node === htmlElement ? Array.from(htmlElement.childNodes) : node.nodeType === node.DOCUMENT_TYPE_NODE ? [] : [node],
  );
  const named = (name: string): El | undefined => nodes.find((node): node is El => (node as El).localName === name);
  const head = named('head') ?? document.createElement('head');
  const body = named('body') ?? document.createElement('body');
  const beforeBody: TreeNode[] = [];
  let inBody = false;
  let bodySeen = false;
  for (const node of nodes) {
    if (node === head) continue;
    if (node === body) {
      bodySeen = true;
      continue;
    }
    const belongsInHead =
      node.nodeType === node.COMMENT_NODE ||
      (node.nodeType === node.TEXT_NODE && (node.textContent ?? '').trim() === '') ||
      (node.nodeType === node.ELEMENT_NODE && HEAD_ELEMENTS.has((node as El).localName));
    if (!inBody && belongsInHead) head.appendChild(node as El);
    else if (bodySeen) body.appendChild(node as El);
    else beforeBody.push(node);
    inBody ||= !belongsInHead;
  }
  body.prepend(...(beforeBody as El[]));
  htmlElement.prepend(head);
  head.after(body);
  if (htmlElement !== root) document.appendChild(htmlElement);
  return document;
}
