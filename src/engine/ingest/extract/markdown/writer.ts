/**
 * Markdown of a linkedom element, written in one walk over its nodes without changing them. What
 * each element becomes follows turndown with the options and GFM plugin the engine used (ATX
 * headings, fenced code with the language its class names, `-` bullets, `_` emphasis, GFM tables,
 * strikethrough and task lists), so that pages convert as they did.
 */
import { backtickFenceFor } from '../../../text/fences.js';
import { BLOCK_ELEMENTS, DROPPED_ELEMENTS, MEANINGFUL_WHEN_BLANK, TEXT_NODE, VOID_ELEMENTS, isAsciiSpace, isElement, isOrphanTablePart } from './elements.js';
import { escapeMarkdown, cleanAttribute, linkDestination, linkTitle } from './escape.js';
import { Tables } from './tables.js';
import { CollapsedTree } from './tree.js';
import { collapseWhitespace } from './whitespace.js';

const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#-]+)/;
const HIGHLIGHTED = /highlight-(?:text|source)-([a-z0-9]+)/;

/** Markdown of the content of `root` (not trimmed). */
export function writeMarkdown(root: Element): string {
  return new MarkdownWriter(new CollapsedTree(collapseWhitespace(root))).children(root, false);
}

/** Whether an element counts even when it holds no text (a table part without its table is only its content). */
function countsWithoutText(element: Element): boolean {
  const name = element.localName;
  return VOID_ELEMENTS.has(name) || (MEANINGFUL_WHEN_BLANK.has(name) && !isOrphanTablePart(element));
}

class MarkdownWriter {
  private readonly tables: Tables;

  constructor(private readonly tree: CollapsedTree) {
    this.tables = new Tables(tree);
  }

  /** The Markdown of each child, joined: blocks are set apart by a blank line, at most. */
  children(parent: Node, inCode: boolean, joined = new Joined()): string {
    let elementIndex = 0;
    for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
      if (node.nodeType === TEXT_NODE) {
        const text = this.tree.keptText(node);
        if (text !== null) joined.add(inCode ? text : escapeMarkdown(text));
      } else if (isElement(node)) {
        if (isOrphanTablePart(node)) this.children(node, inCode, joined);
        else joined.add(this.element(node, inCode, elementIndex));
        elementIndex += 1;
      } else if (this.tree.kept(node)) {
        joined.add('');
      }
    }
    return joined.toString();
  }

  private element(element: Element, parentInCode: boolean, index: number): string {
    const name = element.localName;
    const inCode = parentInCode || name === 'code';
    if (BLOCK_ELEMENTS.has(name)) return this.replacement(element, name, inCode, index, false);
    // Inline elements keep the white space at their edges outside their Markdown (`_a_ b`, not `_a _b`).
    const leading = this.tree.leadingWhitespace(element);
    let before = leading.space;
    let after = leading.whole ? '' : this.tree.trailingWhitespace(element);
    if (before !== '' && isAsciiSpace(before.charCodeAt(0)) && this.isFlankedBefore(element)) before = before.slice(asciiPrefixLength(before));
    if (after !== '' && isAsciiSpace(after.charCodeAt(after.length - 1)) && this.isFlankedAfter(element)) {
      after = after.slice(0, after.length - asciiSuffixLength(after));
    }
    const trim = before !== '' || after !== '';
    return before + this.replacement(element, name, inCode, index, trim) + after;
  }

  private isFlankedBefore(element: Element): boolean {
    const sibling = this.tree.previousSibling(element);
    if (sibling === null) return false;
    if (sibling.nodeType === TEXT_NODE) return this.tree.text(sibling).endsWith(' ');
    return isElement(sibling) && !BLOCK_ELEMENTS.has(sibling.localName) && this.tree.lastCharacter(sibling) === 32;
  }

  private isFlankedAfter(element: Element): boolean {
    const sibling = this.tree.nextSibling(element);
    if (sibling === null) return false;
    if (sibling.nodeType === TEXT_NODE) return this.tree.text(sibling).startsWith(' ');
    return isElement(sibling) && !BLOCK_ELEMENTS.has(sibling.localName) && this.tree.firstCharacter(sibling) === 32;
  }

  private replacement(element: Element, name: string, inCode: boolean, index: number, trim: boolean): string {
    const block = BLOCK_ELEMENTS.has(name);
    if (!countsWithoutText(element) && this.tree.isBlankBelow(element, countsWithoutText)) return block ? '\n\n' : '';
    if (name === 'pre') return this.codeBlock(element);
    if (this.isTaskCheckbox(element, name)) return isChecked(element, name) ? '[x] ' : '[ ] ';
    switch (name) {
      case 'thead':
      case 'tbody':
      case 'tfoot':
        return this.content(element, inCode, trim);
      case 'colgroup':
      case 'col':
      case 'caption':
        return '';
      case 'table':
        return this.tables.table(element, this.content(element, inCode, trim));
      case 'tr':
        return this.tables.row(element, this.content(element, inCode, trim));
      case 'th':
      case 'td':
        return this.tables.cell(element, this.content(element, inCode, trim));
      case 'del':
      case 's':
      case 'strike':
        return `~~${this.content(element, inCode, trim)}~~`;
      case 'div': {
        const language = HIGHLIGHTED.exec(element.getAttributeNode('class')?.value ?? '');
        const first = this.tree.firstChild(element);
        if (language === null || first === null || !isElement(first) || first.localName !== 'pre') break;
        return `\n\n\`\`\`${language[1] ?? ''}\n${first.textContent ?? ''}\n\`\`\`\n\n`;
      }
      case 'p':
        return `\n\n${this.content(element, inCode, trim)}\n\n`;
      case 'br':
        return '  \n';
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        return `\n\n${'#'.repeat(Number(name.charAt(1)))} ${this.content(element, inCode, trim)}\n\n`;
      case 'blockquote':
        return `\n\n${trimNewlines(this.content(element, inCode, trim)).replace(/^/gm, '> ')}\n\n`;
      case 'ul':
      case 'ol': {
        const parent = element.parentNode;
        if (parent !== null && isElement(parent) && parent.localName === 'li' && parent.lastElementChild === element) return `\n${this.content(element, inCode, trim)}`;
        return `\n\n${this.content(element, inCode, trim)}\n\n`;
      }
      case 'li':
        return this.listItem(element, index, this.content(element, inCode, trim));
      case 'hr':
        return '\n\n* * *\n\n';
      case 'a': {
        const href = element.getAttribute('href');
        if (!href) break;
        return `[${this.content(element, inCode, trim)}](${linkDestination(href)}${linkTitle(element.getAttribute('title'))})`;
      }
      case 'em':
      case 'i': {
        const text = this.content(element, inCode, trim);
        return text.trim() ? `_${text}_` : '';
      }
      case 'strong':
      case 'b': {
        const text = this.content(element, inCode, trim);
        return text.trim() ? `**${text}**` : '';
      }
      case 'code':
        if (this.isCodeOfBlock(element)) break;
        return inlineCode(this.content(element, inCode, trim));
      case 'img': {
        const src = element.getAttribute('src');
        if (!src) return '';
        return `![${escapeMarkdown(cleanAttribute(element.getAttribute('alt')))}](${linkDestination(src)}${linkTitle(element.getAttribute('title'))})`;
      }
      default:
        if (DROPPED_ELEMENTS.has(name)) return '';
    }
    return block ? `\n\n${this.content(element, inCode, trim)}\n\n` : this.content(element, inCode, trim);
  }

  /**
   * The Markdown of the element's children, trimmed for an inline element with white space at its
   * edges. A method, not a closure made in replacement(): V8 keeps a closure's optimized code only
   * while one of its closures lives, and compiled a new one for each page.
   */
  private content(element: Element, inCode: boolean, trim: boolean): string {
    const text = this.children(element, inCode);
    return trim ? text.trim() : text;
  }

  /** A fenced code block of the whole text of a <pre>: markup inside code blocks is presentation. */
  private codeBlock(pre: Element): string {
    const code = this.tree.firstDescendant(pre, 'code');
    const language = LANGUAGE.exec(`${pre.getAttribute('class') ?? ''} ${code?.getAttribute('class') ?? ''}`)?.[1] ?? '';
    let text = pre.textContent ?? '';
    if (text.startsWith('\n')) text = text.slice(1);
    else if (text.startsWith('\r\n')) text = text.slice(2);
    if (text.endsWith('\n')) text = text.slice(0, -1);
    const fence = backtickFenceFor(text);
    return `\n\n${fence}${language}\n${text}\n${fence}\n\n`;
  }

  /** A checkbox of a task list: in a list item, or in a label or span of one. */
  private isTaskCheckbox(element: Element, name: string): boolean {
    const checkbox = (name === 'input' && element.getAttribute('type') === 'checkbox') || element.getAttribute('role') === 'checkbox';
    if (!checkbox) return false;
    const parent = element.parentNode;
    if (parent === null || !isElement(parent)) return false;
    if (parent.localName === 'li') return true;
    const grandparent = parent.parentNode;
    return (parent.localName === 'label' || parent.localName === 'span') && grandparent !== null && isElement(grandparent) && grandparent.localName === 'li';
  }

  private listItem(item: Element, index: number, content: string): string {
    const parent = item.parentNode;
    let prefix = '-   ';
    if (parent !== null && isElement(parent) && parent.localName === 'ol') {
      const start = parent.getAttribute('start');
      prefix = `${start ? Number(start) + index : index + 1}.  `;
    }
    const paragraph = content.endsWith('\n');
    const text = (trimNewlines(content) + (paragraph ? '\n' : '')).replace(/\n/g, `\n${' '.repeat(prefix.length)}`);
    return prefix + text + (this.tree.nextSibling(item) !== null ? '\n' : '');
  }

  /** Whether a <code> is all a <pre> holds (the block, not inline code). */
  private isCodeOfBlock(code: Element): boolean {
    const parent = code.parentNode;
    return parent !== null && isElement(parent) && parent.localName === 'pre' && this.tree.previousSibling(code) === null && this.tree.nextSibling(code) === null;
  }
}

function isChecked(element: Element, name: string): boolean {
  return name === 'input' ? element.hasAttribute('checked') : element.getAttribute('aria-checked') === 'true';
}

function inlineCode(content: string): string {
  if (!content) return '';
  const code = content.replace(/\r?\n|\r/g, ' ');
  const extraSpace = /^`|^ .*?[^ ].* $|`$/.test(code) ? ' ' : '';
  let delimiter = '`';
  const runs = new Set(code.match(/`+/g) ?? []);
  while (runs.has(delimiter)) delimiter += '`';
  return delimiter + extraSpace + code + extraSpace + delimiter;
}

function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 10) start++;
  while (end > start && text.charCodeAt(end - 1) === 10) end--;
  return text.slice(start, end);
}

function asciiPrefixLength(text: string): number {
  let length = 0;
  while (length < text.length && isAsciiSpace(text.charCodeAt(length))) length++;
  return length;
}

function asciiSuffixLength(text: string): number {
  let length = 0;
  while (length < text.length && isAsciiSpace(text.charCodeAt(text.length - 1 - length))) length++;
  return length;
}

/**
 * Markdown parts joined as turndown joined them: the line breaks where two parts meet become as
 * many as the larger side has, two at most.
 */
class Joined {
  private readonly parts: string[] = [];
  /** Line breaks the last part ends with. */
  private trailingNewlines = 0;

  add(markdown: string): void {
    // Even nothing added leaves at most two line breaks at the end.
    if (markdown === '' && this.trailingNewlines <= 2) return;
    let leading = 0;
    while (leading < markdown.length && markdown.charCodeAt(leading) === 10) leading++;
    const newlines = Math.max(this.trailingNewlines, leading);
    if (this.trailingNewlines > 0) {
      const last = this.parts.pop() as string;
      const kept = last.slice(0, last.length - this.trailingNewlines);
      if (kept !== '') this.parts.push(kept);
    }
    if (newlines > 0) this.parts.push(newlines === 1 ? '\n' : '\n\n');
    const rest = leading === 0 ? markdown : markdown.slice(leading);
    if (rest !== '') this.parts.push(rest);
    let trailing = 0;
    const last = this.parts[this.parts.length - 1] ?? '';
    while (trailing < last.length && last.charCodeAt(last.length - 1 - trailing) === 10) trailing++;
    this.trailingNewlines = trailing;
  }

  toString(): string {
    return this.parts.join('');
  }
}
