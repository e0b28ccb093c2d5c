/**
 * Confluence pages through the REST API (`/wiki/rest/api` on Cloud,
 * `/rest/api` on Server and Data Center): the page's storage format (XHTML
 * with `ac:` macros) made plain HTML, then Markdown (by the converter: in the
 * engine, the extraction workers). Cloud takes Basic
 * `email:apiToken`; Server and Data Center a personal access token as Bearer.
 */
import * as z from 'zod';
import type { HttpFetcher } from '../../../net/http-fetcher.js';
import type { MarkupConverter } from '../extract/extraction-pool.js';
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
  readonly #converter: MarkupConverter;

  constructor(fetcher: HttpFetcher, converter: MarkupConverter, settings: ConfluenceSettings) {
    this.#converter = converter;
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
    const body = await this.#converter.markupToMarkdown(storage, 'confluence-storage');
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
