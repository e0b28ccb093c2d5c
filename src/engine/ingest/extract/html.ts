/**
 * The readable content of a web page as Markdown, with its title. Pages that mark their content
 * (<main>, role="main", #docContent, a single <article>) are taken from that container with
 * navigation, banners and the like removed: fast and predictable. Other pages go through
 * Readability. When neither finds content, the <main>/<article>/<body> is cleaned and used as is.
 * Never throws: odd HTML gives less Markdown, not an error.
 */
import { Readability } from '@mozilla/readability';
import { HTMLElement as LinkedomElement, parseHTML } from 'linkedom';
import { htmlToMarkdown } from './markdown.js';

export interface ExtractedHtml {
  readonly title: string;
  readonly markdown: string;
}

type Doc = ReturnType<typeof parseHTML>['document'];
type El = NonNullable<ReturnType<Doc['querySelector']>>;

/** Containers that hold a page's content, by how surely they do; each counts only when the page has exactly one. */
const CONTAINERS: ReadonlyArray<(element: El) => boolean> = [
  (element) => element.localName === 'main',
  (element) => element.getAttribute('role') === 'main',
  (element) => element.id === 'docContent',
  // Several <article>s make a listing, not a page.
  (element) => element.localName === 'article',
];
const CONTAINER_SELECTOR = 'main, [role="main"], #docContent, article';

/** Below this much text (and below a third of the page's text) a container does not count as the content. */
const MIN_CONTAINER_CHARACTERS = 500;

/** Elements that are never content, wherever they are. */
const NOISE_ELEMENTS = new Set([
  'script', 'style', 'noscript', 'template', 'link', 'meta', 'svg', 'canvas', 'iframe', 'object', 'embed',
  'img', 'picture', 'video', 'audio', 'form', 'button', 'input', 'select', 'textarea', 'dialog',
  'nav', 'aside', 'footer',
]);
const NOISE_ROLES = new Set(['navigation', 'search', 'dialog', 'alertdialog', 'complementary', 'contentinfo']);

/** class or id tokens of navigation bars, breadcrumbs, skip links and cookie or consent banners. */
const NOISE_NAME = /^(?:nav(?:bar|header|footer|igation|[-_].*)?|breadcrumbs?|skip[-_]?(?:link|to[-_]?content)|.*cookie.*|.*consent.*|gdpr.*|onetrust.*|cc[-_](?:banner|window))$/i;

const LANGUAGE_CLASS = /(?:^|\s)((?:language|lang)-[\w+#-]+)/;

export function extractHtml(html: string, url: string): ExtractedHtml {
  try {
    return extract(html, url);
  } catch {
    return { title: url, markdown: plainText(html) };
  }
}

function extract(html: string, url: string): ExtractedHtml {
  const { document } = parseHTML(html);
  const title = metadataTitle(document) ?? url;
  const base = baseUrl(document, url);
  const container = contentContainer(document);
  if (container) return { title, markdown: toMarkdown(prepare(container, base, false)) };

  // Banners and navigation out of the way first: Readability need not weigh them.
  if (document.body) prepare(document.body, base, false);
  const article = readable(document);
  const markdown = article === undefined ? '' : toMarkdown(prepare(article.content, base, false));
  if (markdown !== '') return { title: article?.title ?? title, markdown };

  // Readability found nothing (and changed the document): start again from the source.
  const fresh = parseHTML(html).document;
  const fallback = fresh.querySelector('main, [role="main"], article') ?? fresh.body ?? fresh.documentElement;
  return { title, markdown: fallback ? toMarkdown(prepare(fallback, base, true)) : '' };
}

/** og:title, else <title>, else the first <h1>. */
function metadataTitle(document: Doc): string | undefined {
  const head = document.head;
  const candidates = [
    () => head?.querySelector('meta[property="og:title"], meta[name="og:title"]')?.getAttribute('content'),
    () => head?.querySelector('title')?.textContent ?? document.querySelector('title')?.textContent,
    () => document.querySelector('h1')?.textContent,
  ];
  for (const candidate of candidates) {
    const text = candidate()?.replace(/\s+/g, ' ').trim();
    if (text) return text;
  }
  return undefined;
}

function baseUrl(document: Doc, url: string): URL | undefined {
  try {
    return new URL(document.head?.querySelector('base[href]')?.getAttribute('href') ?? url, url);
  } catch {
    return URL.canParse(url) ? new URL(url) : undefined;
  }
}

/** The page's marked content container, when it holds enough of the page's text. */
function contentContainer(document: Doc): El | undefined {
  const body = document.body;
  if (!body) return undefined;
  const candidates = Array.from(document.querySelectorAll(CONTAINER_SELECTOR));
  for (const isContainer of CONTAINERS) {
    const found = candidates.filter(isContainer);
    const [candidate] = found;
    if (found.length !== 1 || !candidate) continue;
    const text = textLength(candidate);
    if (text >= MIN_CONTAINER_CHARACTERS) return candidate;
    if (text > 0 && text >= textLength(body) / 3) return candidate;
  }
  return undefined;
}

function readable(document: Doc): { title: string | undefined; content: El } | undefined {
  // keepClasses: the language-* classes of code blocks name their languages.
  const reader = new Readability<El>(document as unknown as Document, {
    keepClasses: true,
    serializer: (node) => node as unknown as El,
  });
  const article = reader.parse();
  if (!article?.content) return undefined;
  return { title: article.title?.replace(/\s+/g, ' ').trim() || undefined, content: article.content };
}

const ROWS_PER_GROUP = 32;

/** Readability turns some layout tables into <div>s and leaves their cells behind; those cells are unwrapped. */
const TABLE_PARTS = new Set(['thead', 'tbody', 'tfoot', 'tr', 'th', 'td']);

/**
 * One pass over `root`: drops what is never content (with `chrome`, page headers too: the root is
 * the whole body), points links where they pointed on the page, makes code blocks plain, and
 * unwraps table cells that lost their table.
 */
function prepare(root: El, base: URL | undefined, chrome: boolean): El {
  for (const element of Array.from(root.querySelectorAll('*'))) {
    const name = element.localName;
    if (isNoise(element, chrome)) element.remove();
    else if (name === 'a') absolutize(element, base);
    else if (name === 'pre') flattenCodeBlock(element);
    else if (name === 'table') splitRowGroups(element);
    else if (TABLE_PARTS.has(name) && !element.closest('table')) element.replaceWith(...Array.from(element.childNodes));
  }
  return root;
}

function isNoise(element: El, chrome: boolean): boolean {
  const name = element.localName;
  if (NOISE_ELEMENTS.has(name) || (chrome && name === 'header')) return true;
  const role = element.getAttribute('role');
  if (role !== null && (NOISE_ROLES.has(role) || (chrome && role === 'banner'))) return true;
  if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true' || element.getAttribute('aria-modal') === 'true') {
    return true;
  }
  const names = `${element.getAttribute('class') ?? ''} ${element.id}`;
  return names.trim() !== '' && names.split(/\s+/).some((token) => token !== '' && NOISE_NAME.test(token));
}

/** Links point where they pointed on the page; javascript: and unparsable links lose their href. */
function absolutize(link: El, base: URL | undefined): void {
  const href = link.getAttribute('href');
  if (href === null || base === undefined) return;
  try {
    const target = new URL(href, base);
    if (target.protocol === 'javascript:') link.removeAttribute('href');
    else link.setAttribute('href', target.href);
  } catch {
    link.removeAttribute('href');
  }
}

/**
 * Makes a <pre> one <code> holding the block's whole text, its language class kept: markup inside
 * code blocks (<em><code>placeholder</code></em> in synopses, highlighter spans) is presentation,
 * and a <code> that is only part of the block must not stand for all of it.
 */
function flattenCodeBlock(pre: El): void {
  const code = pre.ownerDocument.createElement('code');
  const classes = `${pre.getAttribute('class') ?? ''} ${pre.querySelector('code')?.getAttribute('class') ?? ''}`;
  const language = LANGUAGE_CLASS.exec(classes)?.[1];
  if (language) code.setAttribute('class', language);
  // The HTML parser drops a newline right after <pre>; linkedom keeps it.
  code.textContent = (pre.textContent ?? '').replace(/^\r?\n/, '');
  pre.replaceChildren(code);
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

function textLength(element: El): number {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

/** Markdown of a linkedom element. Should turndown trip over the DOM, the serialized HTML takes its place. */
function toMarkdown(element: El): string {
  rowsDuringConversion = new WeakMap();
  try {
    return htmlToMarkdown(element as unknown as HTMLElement);
  } catch {
    return htmlToMarkdown(element.innerHTML);
  } finally {
    rowsDuringConversion = undefined;
  }
}

/** The text of HTML that cannot be parsed at all. */
function plainText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
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

function addTableRows(): void {
  if ('rows' in LinkedomElement.prototype) return;
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

addTableRows();
