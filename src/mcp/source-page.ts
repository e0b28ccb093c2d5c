/**
 * One page of the data-source listing as MCP shows it. The REST body's `next`
 * and `previous` are URLs of that API; here the next page is a page number.
 */
import * as z from 'zod';
import { lazySchema } from '../core/lazy-schema.js';
import type { DataSourcePage } from '../core/assistant.js';
import { DataSource } from '../core/schemas.js';

export const SourcePage = lazySchema(() => z.object({
  count: z.number().int().describe('Number of sources of the guru, all pages together'),
  page: z.number().int(),
  page_size: z.number().int(),
  next_page: z.number().int().nullable().describe('Page number to ask for next, or null on the last page'),
  results: z.array(DataSource),
}));
export type SourcePage = z.infer<typeof SourcePage>;

export function toSourcePage(page: DataSourcePage): SourcePage {
  const seen = (page.page - 1) * page.page_size + page.results.length;
  return {
    count: page.count,
    page: page.page,
    page_size: page.page_size,
    next_page: page.results.length > 0 && seen < page.count ? page.page + 1 : null,
    results: page.results,
  };
}
