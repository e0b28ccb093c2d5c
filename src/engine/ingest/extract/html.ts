/**
 * The readable content of a web page as Markdown, with its title. Pages that mark their content
 * (<main>, role="main", #docContent, a single <article>, or the outermost sections headed by an
 * <h1>, as documentation generators write a page) are taken from that container with
 * navigation, banners and the like removed: fast and predictable. Other pages go through
 * Readability. When neither finds content, the <main>/<article>/<body> is cleaned and used as is.
 * Never throws: odd HTML gives less Markdown, not an error.
 */
import { Readability } from '@mozilla/readability';
import type { parseHTML } from 'linkedom';
import { parseDocument } from './html-document.js';
import { htmlToMarkdown, plainText } from './markdown.js';
import { isText } from './markdown/elements.js';
import { nextInTree } from './markdown/tree.js';

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

/** Below this much text (and below a third of the page's text) a container does not count as the content. */
const MIN_CONTAINER_CHARACTERS = 500;

/** Nesting depth of a page's body beyond which Readability is not tried; real pages stay well below it. */
const MAX_READABLE_DEPTH = 100;

/** Elements that are never content, wherever they are. */
const NOISE_ELEMENTS = new Set([
  'script', 'style', 'noscript', 'template', 'link', 'meta', 'svg', 'canvas', 'iframe', 'object', 'embed',
  'img', 'picture', 'video', 'audio', 'form', 'button', 'input', 'select', 'textarea', 'dialog',
  'nav', 'aside', 'footer',
]);
const NOISE_ROLES = new Set(['navigation', 'search', 'dialog', 'alertdialog', 'complementary', 'contentinfo']);

/** What a cookie or consent banner's name calls it, beside the word cookie or consent. */
const BANNER_WORD = '(?:banner|notice|bar|popup|pop-up|modal|dialog|overlay|law|message|alert|wall|box|prompt|container|wrapper|info|accept|settings|preferences|consent|bot)';
/**
 * class or id tokens of navigation bars, breadcrumbs, skip links and cookie or consent banners. A
 * cookie name alone is not a banner: documentation names its sections and API entries after the
 * subject (`module-http.cookies`, `cookie-objects`, SQLite's `schema_cookie`).
 */
const NOISE_NAME = new RegExp(
  `^(?:nav(?:bar|header|footer|igation|[-_].*)?|breadcrumbs?|skip[-_]?(?:link|to[-_]?content)|.*(?:cookie|consent).*${BANNER_WORD}.*|.*${BANNER_WORD}.*(?:cookie|consent).*|gdpr.*|onetrust.*|cc[-_](?:banner|window))$`,
  'i',
);
/** What every NOISE_NAME token holds: most elements' names are cleared by this one test. */
const NOISE_NAME_PART = /nav|breadcrumb|skip|cookie|consent|gdpr|onetrust|cc[-_]/i;


export function extractHtml(html: string, url: string): ExtractedHtml {
  try {
    return extract(html, url);
  } catch {
    return { title: url, markdown: plainText(html) };
  }
}

function extract(html: string, url: string): ExtractedHtml {
  const document = parseDocument(html);
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
  const fresh = parseDocument(html);
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
  // Every element, tested here: linkedom matches a list of selectors far more slowly than '*'.
  const candidates = Array.from(document.querySelectorAll('*')).filter(mayBeContainer);
  for (const isContainer of CONTAINERS) {
    const found = candidates.filter(isContainer);
    const [candidate] = found;
    if (found.length === 1 && candidate && holdsContent(candidate, body)) return candidate;
  }
  const sections = titledSections(candidates);
  return sections !== undefined && holdsContent(sections, body) ? sections : undefined;
}

function holdsContent(container: El, body: El): boolean {
  const text = textLength(container, MIN_CONTAINER_CHARACTERS);
  return text >= MIN_CONTAINER_CHARACTERS || (text > 0 && text >= textLength(body) / 3);
}

/**
 * The sections an <h1> heads, as Sphinx and other documentation generators write a page: the one
 * outermost section holding an <h1>, or the element holding several side by side. Readability, left
 * to find the text, keeps the largest subsection and drops its siblings, or passes over a section
 * whose id holds one of its chrome words ("meta" in `s-model-meta-options`).
 */
function titledSections(candidates: readonly El[]): El | undefined {
  const titled = candidates.filter((element) => isSection(element) && !insideSection(element) && element.querySelector('h1') !== null);
  const [first] = titled;
  if (first === undefined) return undefined;
  if (titled.length === 1) return first;
  const parent = first.parentElement;
  return parent !== null && titled.every((section) => section.parentElement === parent) ? parent : undefined;
}

const SECTION_CLASS = /(?:^|\s)section(?:\s|$)/;

/** A <section>, or an element of class "section" (as older Sphinx writes them). */
function isSection(element: El): boolean {
  return element.localName === 'section' || SECTION_CLASS.test(element.getAttributeNode('class')?.value ?? '');
}

function insideSection(element: El): boolean {
  for (let parent = element.parentElement; parent !== null; parent = parent.parentElement) if (isSection(parent)) return true;
  return false;
}

/**
 * Whether any of CONTAINERS takes the element. Not an arrow made in contentContainer: V8 keeps a
 * closure's optimized code only while one of its closures lives, so each page compiled it anew.
 */
function mayBeContainer(element: El): boolean {
  for (const isContainer of CONTAINERS) if (isContainer(element)) return true;
  return isSection(element);
}

/** Whether elements nest more than `limit` deep below `root`; stops looking once they do. */
function nestsDeeperThan(root: El, limit: number): boolean {
  const stack: Array<readonly [El, number]> = [[root, 0]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [element, depth] = entry;
    if (depth > limit) return true;
    for (const child of Array.from(element.children)) stack.push([child, depth + 1]);
  }
  return false;
}

function readable(document: Doc): { title: string | undefined; content: El } | undefined {
  // Readability's work grows with about the cube of the nesting depth (minutes for 2,000 nested
  // <div>s); pages nested that deep are taken as they are.
  if (nestsDeeperThan(document.body, MAX_READABLE_DEPTH)) return undefined;
  // keepClasses: the language-* classes of code blocks name their languages.
  const reader = new Readability<El>(document as unknown as Document, {
    keepClasses: true,
    serializer: (node) => node as unknown as El,
  });
  wholeNamePartsOnly(reader as unknown as ReadabilityPatterns);
  const article = reader.parse();
  if (!article?.content) return undefined;
  return { title: article.title?.replace(/\s+/g, ' ').trim() || undefined, content: article.content };
}

/** Readability's own patterns, not part of its typings. */
interface ReadabilityPatterns {
  REGEXPS: { unlikelyCandidates: RegExp };
}

/** A pattern that is only words and hyphens joined by `|`: `-ad-|banner|extra|menu`. */
const WORD_ALTERNATIVES = /^[a-z0-9-]+(?:\|[a-z0-9-]+)*$/i;

/**
 * Readability removes, before it looks for the article, every element whose class or id holds one
 * of the words that name page chrome anywhere in it: "extra" in `the_json_extract_function` (the
 * heading of a section that documents json_extract()), "menu" in `submenu`. Documentation names
 * its elements after their subject, and page chrome is removed by our own rules first (prepare),
 * so here a word counts only as a whole part of a name (parts separated by spaces, `-` and `_`,
 * a plural too): `menu`, `site-header` and `comments` still are chrome, `the_json_extract_function`
 * is not. Alternatives that start or end with a hyphen (`-ad-`) already mark their own bounds.
 */
function wholeNamePartsOnly(reader: ReadabilityPatterns): void {
  const patterns = reader.REGEXPS;
  const unlikely = wholePartsOf(patterns.unlikelyCandidates);
  if (unlikely !== patterns.unlikelyCandidates) reader.REGEXPS = { ...patterns, unlikelyCandidates: unlikely };
}

/** Readability's pattern and ours, made once: every page read by Readability needs it. */
let boundedPattern: { readonly of: RegExp; readonly bounded: RegExp } | undefined;

/** The pattern with its words matched as whole name parts; a pattern of another shape (a newer Readability) as it is. */
function wholePartsOf(pattern: RegExp): RegExp {
  if (boundedPattern?.of === pattern) return boundedPattern.bounded;
  const source = pattern.source;
  if (!WORD_ALTERNATIVES.test(source)) return pattern;
  const alternatives = source.split('|');
  const words = alternatives.filter((word) => !word.startsWith('-') && !word.endsWith('-'));
  const own = alternatives.filter((word) => word.startsWith('-') || word.endsWith('-'));
  const bounded = new RegExp([`(?:^|[\\s_-])(?:${words.join('|')})s?(?=$|[\\s_-])`, ...own].join('|'), 'i');
  boundedPattern = { of: pattern, bounded };
  return bounded;
}

/**
 * One pass over `root`: drops what is never content (with `chrome`, page headers too: the root is
 * the whole body) and points links where they pointed on the page.
 */
function prepare(root: El, base: URL | undefined, chrome: boolean): El {
  for (const element of Array.from(root.querySelectorAll('*'))) {
    const name = element.localName;
    if (isNoise(element, chrome)) element.remove();
    else if (name === 'a') {
      if (isPermalink(element)) element.remove();
      else absolutize(element, base);
    }
  }
  return root;
}

/** What a permalink shows (Sphinx and MkDocs ¶, Docusaurus and Hugo #), or nothing (an icon drawn by CSS). */
const PERMALINK_TEXT = /^[\s¶§#🔗⚓\u200b]*$/u;

/**
 * A link of a heading or definition to itself, as documentation generators add beside each
 * (`<a class="headerlink" href="#csv.reader">¶</a>`): it is chrome, and in a heading it would put a
 * stray ¶ and a URL into every section's heading path.
 */
function isPermalink(link: El): boolean {
  return (link.getAttribute('href') ?? '').startsWith('#') && PERMALINK_TEXT.test(link.textContent ?? '');
}

function isNoise(element: El, chrome: boolean): boolean {
  const name = element.localName;
  if (NOISE_ELEMENTS.has(name) || (chrome && name === 'header')) return true;
  const role = element.getAttribute('role');
  if (role !== null && (NOISE_ROLES.has(role) || (chrome && role === 'banner'))) return true;
  if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true' || element.getAttribute('aria-modal') === 'true') {
    return true;
  }
  // The class attribute's value as stored: linkedom's getAttribute('class') joins its token set anew.
  const names = `${element.getAttributeNode('class')?.value ?? ''} ${element.id}`;
  return NOISE_NAME_PART.test(names) && names.split(/\s+/).some((token) => token !== '' && NOISE_NAME.test(token));
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

/** No limit to textLength, as a small integer: V8 compiles its comparison for those, and Infinity undid that. */
const NO_LIMIT = 2 ** 30 - 1;

/**
 * The length of the element's text with white space collapsed and trimmed, as
 * `textContent.replace(/\s+/g, ' ').trim().length`, counted only up to `limit`: its text nodes
 * are read until the length reaches it.
 */
function textLength(element: El, limit = NO_LIMIT): number {
  const root = element as unknown as Node;
  let length = 0;
  let spaceBefore = false;
  for (let node = nextInTree(root, root); node !== undefined && length < limit; node = nextInTree(node, root)) {
    if (!isText(node)) continue;
    const text = node.nodeValue ?? '';
    let end = 0;
    for (const word of text.matchAll(/\S+/g)) {
      if (length > 0 && (spaceBefore || word.index > end)) length += 1;
      length += word[0].length;
      spaceBefore = false;
      end = word.index + word[0].length;
    }
    spaceBefore ||= end < text.length;
  }
  return length;
}

/** Markdown of a linkedom element; should the converter trip over the DOM, its plain text. */
function toMarkdown(element: El): string {
  try {
    return htmlToMarkdown(element);
  } catch {
    return plainText(element.innerHTML);
  }
}
