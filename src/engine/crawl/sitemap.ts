/**
 * Sitemaps (sitemaps.org): a `<urlset>` lists pages, a `<sitemapindex>` lists further sitemaps.
 * Only the `<loc>` of each entry matters to the crawler, so a scan of the text is enough.
 */
import { gunzipSync } from 'node:zlib';
import type { FetchedResponse } from '../../net/http-fetcher.js';
import { decodeEntities } from './links.js';

/** The protocol's own cap on an uncompressed sitemap. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

export interface Sitemap {
  readonly kind: 'index' | 'urlset';
  readonly locations: readonly string[];
}

const ROOT = /<(?:[\w.-]+:)?(sitemapindex|urlset)[\s>]/i;
const LOC = /<(?:[\w.-]+:)?loc\s*>\s*(?:<!\[CDATA\[([\s\S]*?)\]\]>|([^<]*))\s*<\/(?:[\w.-]+:)?loc\s*>/gi;

/** The entries of a sitemap; undefined when the text is not one. */
export function readSitemap(xml: string): Sitemap | undefined {
  const root = ROOT.exec(xml);
  if (root === null) return undefined;
  const kind = root[1]!.toLowerCase() === 'sitemapindex' ? 'index' : 'urlset';
  const locations: string[] = [];
  for (const match of xml.matchAll(LOC)) {
    const location = (match[1] ?? decodeEntities(match[2]!)).trim();
    if (location !== '') locations.push(location);
  }
  return { kind, locations };
}

/** The text of a fetched sitemap, gunzipped when it is a `.xml.gz` file served as it is. */
export function sitemapText(response: FetchedResponse): string {
  const { body } = response;
  if (body[0] === 0x1f && body[1] === 0x8b) return gunzipSync(body, { maxOutputLength: MAX_SITEMAP_BYTES }).toString('utf8');
  return response.text();
}
