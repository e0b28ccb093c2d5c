/**
 * The one HTML → Markdown converter of the ingestion pipeline (web pages,
 * Confluence and Zendesk bodies, Word documents): ATX headings, fenced code
 * with its language, GitHub-flavoured tables and strikethrough.
 *
 * HTML text is parsed with linkedom, never with turndown's own parser: on
 * large tables that one is orders of magnitude slower (minutes for a table of
 * a thousand rows).
 */
// Imported, not required at run time, so that the bundle carries the plugin with its edits (scripts/bundle.js).
import { gfm } from '@joplin/turndown-plugin-gfm';
import { HTMLElement as LinkedomElement, parseHTML } from 'linkedom';
import TurndownService from 'turndown';

type Doc = ReturnType<typeof parseHTML>['document'];
type El = NonNullable<ReturnType<Doc['querySelector']>>;

const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#-]+)/;
const TABLE_PARTS = new Set(['thead', 'tbody', 'tfoot', 'tr', 'th', 'td']);
/** Body rows per <tbody> during conversion; see splitRowGroups. */
const ROWS_PER_GROUP = 32;

function createConverter(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'form', 'button']);
  // linkedom does not reflect the `checked` attribute as a property, which the GFM plugin reads.
  service.addRule('taskListCheckbox', {
    filter: (node) => node.nodeName === 'INPUT' && node.getAttribute('type') === 'checkbox' && node.parentNode?.nodeName === 'LI',
    replacement: (_content, node) => (node.hasAttribute('checked') ? '[x] ' : '[ ] '),
  });
  service.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const language = LANGUAGE.exec(`${node.getAttribute('class') ?? ''} ${node.querySelector('code')?.getAttribute('class') ?? ''}`)?.[1] ?? '';
      // The whole block's text: markup inside code blocks is presentation.
      const text = (node.textContent ?? '').replace(/^\r?\n/, '').replace(/\n$/, '');
      const longestRun = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
      const fence = '`'.repeat(longestRun + 1);
      return `\n\n${fence}${language}\n${text}\n${fence}\n\n`;
    },
  });
  return service;
}

let converter: TurndownService | undefined;

/** Markdown of HTML text, or of an element of a linkedom document (which this prepares in place). */
export function htmlToMarkdown(html: string | El): string {
  converter ??= createConverter();
  const root = typeof html === 'string' ? parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`).document.body : html;
  prepareTables(root);
  rowsDuringConversion = new WeakMap();
  try {
    return converter
      .turndown(root as unknown as TurndownService.Node)
      .replace(/^(\s*[-*+]\s+\[[x ]\]) {2,}/gm, '$1 ')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  } finally {
    rowsDuringConversion = undefined;
  }
}

/** Unwraps table cells that lost their table (the GFM plugin trips over them) and regroups long tables. */
function prepareTables(root: El): void {
  // Every element, tested here: linkedom matches a list of selectors far more slowly than '*'.
  const parts = Array.from(root.querySelectorAll('*')).filter((element) => element.localName === 'table' || TABLE_PARTS.has(element.localName));
  for (const element of parts) {
    if (element.localName === 'table') splitRowGroups(element);
    else if (TABLE_PARTS.has(element.localName) && !element.closest('table')) element.replaceWith(...Array.from(element.childNodes));
  }
}

/**
 * Regroups the body rows of a long table into <tbody>s of a few dozen rows. The GFM plugin walks a
 * table's children by index, and linkedom builds `childNodes` afresh on every access, so a
 * thousand rows in one element cost a million steps; in groups they cost a few thousand.
 */
function splitRowGroups(table: El): void {
  const parts = Array.from(table.children).filter((child) => child.localName === 'tbody' || child.localName === 'tr');
  const rows = parts.flatMap((part) => (part.localName === 'tr' ? [part] : Array.from(part.children).filter((row) => row.localName === 'tr')));
  const [first] = parts;
  if (rows.length <= ROWS_PER_GROUP || !first) return;
  const document = table.ownerDocument;
  const marker = document.createComment('');
  first.before(marker);
  for (let start = 0; start < rows.length; start += ROWS_PER_GROUP) {
    const group = document.createElement('tbody');
    group.append(...rows.slice(start, start + ROWS_PER_GROUP));
    marker.before(group);
  }
  marker.remove();
  for (const part of parts) if (part.localName === 'tbody') part.remove();
}

/**
 * linkedom parses <table> as a plain HTMLElement without `rows`, which the GFM plugin reads to
 * convert tables (and to decide they are tables at all). This adds the standard property for
 * tables (thead rows, then body rows, then tfoot rows); other elements keep it undefined. The
 * plugin reads `table.rows` once per row and column, so during a conversion, which does not
 * move rows, each table's list is computed once.
 */
let rowsDuringConversion: WeakMap<El, El[]> | undefined;

function tableRows(table: El): El[] {
  const head: El[] = [];
  const body: El[] = [];
  const foot: El[] = [];
  for (const child of Array.from(table.children)) {
    const name = child.localName;
    if (name === 'tr') body.push(child);
    else if (name === 'thead' || name === 'tbody' || name === 'tfoot') {
      const rows = Array.from(child.children).filter((row) => row.localName === 'tr');
      (name === 'thead' ? head : name === 'tfoot' ? foot : body).push(...rows);
    }
  }
  return [...head, ...body, ...foot];
}

if (!('rows' in LinkedomElement.prototype)) {
  Object.defineProperty(LinkedomElement.prototype, 'rows', {
    configurable: true,
    get(this: El): El[] | undefined {
      if (this.localName !== 'table') return undefined;
      const cached = rowsDuringConversion?.get(this);
      if (cached) return cached;
      const rows = tableRows(this);
      rowsDuringConversion?.set(this, rows);
      return rows;
    },
  });
}
