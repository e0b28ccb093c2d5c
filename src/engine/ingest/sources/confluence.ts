/**
 * Confluence pages through the REST API (`/wiki/rest/api` on Cloud,
 * `/rest/api` on Server and Data Center): the page's storage format (XHTML
 * with `ac:` macros) made plain HTML, then Markdown. Cloud takes Basic
 * `email:apiToken`; Server and Data Center a personal access token as Bearer.
 */
import { parseHTML } from 'linkedom';
import { z } from 'zod';
import type { HttpFetcher } from '../../../net/http-fetcher.js';
import { htmlToMarkdown } from '../extract/markdown.js';
import { atlassianAuthorization, IntegrationApi, parseSourceUrl, type RefusalMessage } from './integration-api.js';
import { SourceError, type ReadDocument, type SourceReader } from './types.js';

export interface ConfluenceSettings {
  /** The site, e.g. `https://example.atlassian.net` or `https://confluence.example.com`. */
  readonly baseUrl: string;
  /** Confluence Cloud account email; absent for a Server/Data Center personal access token. */
  readonly email?: string;
  readonly apiToken: string;
}

/** A page named by a URL: by id, or (for `/display/KEY/Title`) by space and title. */
type PageReference =
  | { readonly prefix: string; readonly id: string }
  | { readonly prefix: string; readonly spaceKey: string; readonly title: string };

const EXPAND = 'body.storage,space,version';

const Content = z.object({
  id: z.string(),
  title: z.string(),
  type: z.string().optional(),
  body: z.object({ storage: z.object({ value: z.string() }).optional() }).optional(),
});
const SearchResults = z.object({ results: z.array(Content) });
type Content = z.infer<typeof Content>;

export class ConfluenceReader implements SourceReader {
  readonly #api: IntegrationApi;

  constructor(fetcher: HttpFetcher, settings: ConfluenceSettings) {
    this.#api = new IntegrationApi(fetcher, 'Confluence', settings.baseUrl, atlassianAuthorization(settings.email, settings.apiToken));
  }

  async read(url: string, signal?: AbortSignal): Promise<ReadDocument> {
    const page = this.#reference(url);
    const api = `${page.prefix}rest/api/content`;
    let content: Content;
    if ('id' in page) {
      content = await this.#api.getJson(`${api}/${page.id}?expand=${EXPAND}`, Content, this.#refusal(`page ${page.id}`), signal);
    } else {
      const query = new URLSearchParams({ spaceKey: page.spaceKey, title: page.title, expand: EXPAND });
      const what = `page "${page.title}" in space ${page.spaceKey}`;
      const { results } = await this.#api.getJson(`${api}?${query}`, SearchResults, this.#refusal(what), signal);
      const found = results[0];
      if (!found) throw new SourceError(`Confluence has no ${what} that the integration's account can see; check the URL, or use the page's /pages/{id} URL`);
      content = found;
    }
    const storage = content.body?.storage?.value ?? '';
    const body = htmlToMarkdown(storageToHtml(storage));
    if (!body) throw new SourceError(`Confluence page ${content.id} ("${content.title}") has no text to index`);
    return {
      title: content.title,
      markdown: `# ${content.title}\n\n${body}\n`,
      url: new URL(`${page.prefix}pages/viewpage.action?pageId=${content.id}`, this.#api.base).href,
    };
  }

  /**
   * `/wiki/spaces/KEY/pages/123/Title`, `/wiki/pages/viewpage.action?pageId=123`,
   * `/display/KEY/Title`, each with or without `/wiki`: the API lives under the same prefix.
   */
  #reference(input: string): PageReference {
    const example = `${this.#api.site}/wiki/spaces/KEY/pages/123456/Title`;
    const url = parseSourceUrl(input, `a Confluence page URL such as ${example}`);
    if (!this.#api.covers(url)) {
      throw new SourceError(
        `${input} is not under the Confluence integration's base URL ${this.#api.site}; ` +
          `add pages of that site only, or configure the Confluence integration for the other site`,
      );
    }
    const path = this.#api.relativePath(url);
    const prefix = path.startsWith('wiki/') ? 'wiki/' : '';
    const rest = path.slice(prefix.length).replace(/\/+$/, '');
    const byId =
      /^spaces\/[^/]+\/pages\/(\d+)(?:\/.*)?$/.exec(rest) ?? /^spaces\/[^/]+\/blog\/(?:\d{4}\/\d{2}\/\d{2}\/)?(\d+)(?:\/.*)?$/.exec(rest);
    if (byId?.[1]) return { prefix, id: byId[1] };
    const pageId = url.searchParams.get('pageId');
    if (/^pages\/viewpage\.action$/.test(rest) && pageId && /^\d+$/.test(pageId)) return { prefix, id: pageId };
    const display = /^display\/([^/]+)\/([^/]+)$/.exec(rest);
    if (display?.[1] && display[2]) {
      return { prefix, spaceKey: decodeSegment(display[1]), title: decodeSegment(display[2]) };
    }
    throw new SourceError(`${input} is not a Confluence page URL; give one such as ${example}`);
  }

  #refusal(what: string): RefusalMessage {
    const site = this.#api.site;
    return (status) => {
      switch (status) {
        case 401:
          return `Confluence answered 401: ${site} refused the integration's credentials; check the Confluence integration's email and API token (or personal access token)`;
        case 403:
          return `Confluence answered 403: the integration's account may not see ${what} on ${site}; grant it access to the space`;
        case 404:
          return `Confluence answered 404: ${what} does not exist or the integration's account cannot see it`;
        default:
          return undefined;
      }
    };
  }
}

/** `/display/` URLs write spaces as `+` and escape the rest. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment.replace(/\+/g, ' '));
  } catch {
    return segment.replace(/\+/g, ' ');
  }
}

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
// Quoted and unquoted values exclude each other, so a long tag cannot make the match backtrack exponentially.
const SELF_CLOSING = /<([A-Za-z][\w:-]*)((?:\s+[^\s/>=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/>/g;
const ADMONITIONS: Readonly<Record<string, string>> = { info: 'Info', note: 'Note', warning: 'Warning', tip: 'Tip', panel: '' };
const CODE_MACROS = new Set(['code', 'noformat']);


/**
 * Storage format → plain HTML for htmlToMarkdown: code macros become `<pre><code>`, info, note,
 * warning, tip and panel macros blockquotes, links their text; other macros keep only their
 * rich-text body, and every other `ac:`/`ri:` element is unwrapped.
 */
export function storageToHtml(storage: string): string {
  // The HTML parser neither reads CDATA sections nor self-closing tags of unknown elements.
  const html = storage
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, text: string) => escapeHtml(text))
    .replace(SELF_CLOSING, (_, name: string, attributes: string) =>
      VOID_ELEMENTS.has(name.toLowerCase()) ? `<${name}${attributes}>` : `<${name}${attributes}></${name}>`,
    );
  const { document } = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`);
  const body = document.body;
  const all = (name: string) => Array.from(body.querySelectorAll('*')).filter((element) => element.localName === name);

  // Innermost first, so a macro inside another's body is already plain HTML when the outer one is rewritten.
  for (const macro of [...all('ac:structured-macro'), ...all('ac:macro')].reverse()) {
    const name = (macro.getAttribute('ac:name') ?? '').toLowerCase();
    const parameter = (key: string) => child(macro, 'ac:parameter', key)?.textContent?.trim() || undefined;
    const richBody = child(macro, 'ac:rich-text-body');
    if (CODE_MACROS.has(name)) {
      const pre = document.createElement('pre');
      const code = document.createElement('code');
      const language = name === 'code' ? parameter('language') : undefined;
      if (language) code.setAttribute('class', `language-${language.toLowerCase()}`);
      code.textContent = child(macro, 'ac:plain-text-body')?.textContent ?? '';
      pre.appendChild(code);
      macro.replaceWith(pre);
    } else if (name in ADMONITIONS) {
      const quote = document.createElement('blockquote');
      const label = [ADMONITIONS[name], parameter('title')].filter(Boolean).join(': ');
      if (label) {
        const heading = document.createElement('p');
        const strong = document.createElement('strong');
        strong.textContent = label;
        heading.appendChild(strong);
        quote.appendChild(heading);
      }
      if (richBody) quote.append(...Array.from(richBody.childNodes));
      macro.replaceWith(quote);
    } else if (name === 'expand' && richBody) {
      const title = parameter('title');
      const heading = document.createElement('p');
      if (title) {
        const strong = document.createElement('strong');
        strong.textContent = title;
        heading.appendChild(strong);
      }
      macro.replaceWith(...(title ? [heading] : []), ...Array.from(richBody.childNodes));
    } else if (richBody) {
      macro.replaceWith(...Array.from(richBody.childNodes));
    } else {
      macro.remove();
    }
  }

  for (const link of all('ac:link')) {
    const target = child(link, 'ri:url')?.getAttribute('ri:value');
    const text =
      child(link, 'ac:link-body')?.textContent?.trim() ||
      child(link, 'ac:plain-text-link-body')?.textContent?.trim() ||
      child(link, 'ri:page')?.getAttribute('ri:content-title') ||
      child(link, 'ri:blog-post')?.getAttribute('ri:content-title') ||
      child(link, 'ri:attachment')?.getAttribute('ri:filename') ||
      target ||
      '';
    if (target) {
      const anchor = document.createElement('a');
      anchor.setAttribute('href', target);
      anchor.textContent = text;
      link.replaceWith(anchor);
    } else {
      link.replaceWith(document.createTextNode(text));
    }
  }
  for (const image of all('ac:image')) {
    const source = child(image, 'ri:url')?.getAttribute('ri:value');
    if (source) {
      const img = document.createElement('img');
      img.setAttribute('src', source);
      img.setAttribute('alt', image.getAttribute('ac:alt') ?? '');
      image.replaceWith(img);
    } else {
      image.remove();
    }
  }
  for (const task of all('ac:task')) {
    const item = document.createElement('li');
    const box = document.createElement('input');
    box.setAttribute('type', 'checkbox');
    if (child(task, 'ac:task-status')?.textContent?.trim() === 'complete') box.setAttribute('checked', '');
    item.append(box, ...Array.from(child(task, 'ac:task-body')?.childNodes ?? []));
    task.replaceWith(item);
  }
  for (const list of all('ac:task-list')) {
    const ul = document.createElement('ul');
    ul.append(...Array.from(list.childNodes));
    list.replaceWith(ul);
  }
  for (const time of Array.from(body.querySelectorAll('time'))) {
    if (!time.textContent?.trim()) time.replaceWith(document.createTextNode(time.getAttribute('datetime') ?? ''));
  }
  for (const element of Array.from(body.querySelectorAll('*')).reverse()) {
    const name = element.localName;
    if (name === 'ac:parameter' || name === 'ac:emoticon' || name === 'ac:placeholder' || name.startsWith('ri:')) element.remove();
    else if (name.startsWith('ac:')) element.replaceWith(...Array.from(element.childNodes));
  }
  return body.innerHTML;
}

/** The first direct child named `name` (and, when given, with `ac:name="key"`). */
function child(parent: Element, name: string, key?: string): Element | undefined {
  for (const element of Array.from(parent.children)) {
    if (element.localName === name && (key === undefined || element.getAttribute('ac:name') === key)) return element;
  }
  return undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
