/**
 * The URL kinds of an add-sources request: the source type each becomes, how
 * many of a type one guru may hold, and the canonical form of their URLs.
 */
import { Errors } from '../../core/errors.js';
import type { CreatedSourceType, DataSourceType } from '../../core/schemas.js';

export const URL_KINDS = ['youtube_urls', 'website_urls', 'zendesk_urls', 'jira_urls', 'confluence_urls'] as const;
export type UrlKind = (typeof URL_KINDS)[number];

export const URL_KIND_TYPES: Record<UrlKind, { readonly type: DataSourceType; readonly created: CreatedSourceType }> = {
  youtube_urls: { type: 'YOUTUBE', created: 'YouTube' },
  website_urls: { type: 'WEBSITE', created: 'Website' },
  zendesk_urls: { type: 'ZENDESK', created: 'Zendesk' },
  jira_urls: { type: 'JIRA', created: 'Jira' },
  confluence_urls: { type: 'CONFLUENCE', created: 'Confluence' },
};

/** How many sources of a kind one guru may hold: the hosted service's defaults. */
export const SOURCE_LIMITS: Record<DataSourceType, number> = {
  WEBSITE: 1500,
  YOUTUBE: 100,
  JIRA: 100,
  ZENDESK: 100,
  CONFLUENCE: 100,
  TEXT: Number.POSITIVE_INFINITY,
  PDF: Number.POSITIVE_INFINITY,
  WORD: Number.POSITIVE_INFINITY,
  EXCEL: Number.POSITIVE_INFINITY,
};

export interface UrlSourcePlan {
  readonly type: DataSourceType;
  readonly created: CreatedSourceType;
  /** Canonical form: the same page sent twice is one source. */
  readonly url: string;
  readonly host: string;
}

/**
 * The canonical URL of each item, or a refusal naming the first bad one. The
 * URL helpers load with their readers, only when URL sources are added.
 */
export async function canonicalUrls(kind: UrlKind, urls: readonly string[]): Promise<string[]> {
  const canonical =
    kind === 'youtube_urls'
      ? await import('./sources/youtube.js').then(({ videoId }) => (url: string) => `https://www.youtube.com/watch?v=${videoId(url)}`)
      : await import('./sources/web.js').then(({ normalizeUrl }) => normalizeUrl);
  return urls.map((url) => {
    try {
      return canonical(url);
    } catch (error) {
      throw Errors.invalidRequest('create_sources', `${kind}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
