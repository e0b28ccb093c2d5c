/** `guru-mcp sources [<slug>] [--page N] [--page-size N] [--json]` */
import type { DataSourcePage } from '../../core/assistant.js';
import { MAX_SOURCE_PAGE_SIZE } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { commandLineOf, type CommandLine } from '../invocation.js';
import { columns, shellQuote, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag, positiveInteger } from '../values.js';

export const DEFAULT_PAGE_SIZE = 50;

export function renderSources(page: DataSourcePage, slug: string, command: CommandLine): string[] {
  if (page.count === 0) return [`No sources yet. Add some with: ${command(`add ${shellQuote(slug)} FILE|URL...`)}`];
  if (page.results.length === 0) return [`Page ${page.page} is past the end: ${page.count} sources, ${page.page_size} per page.`];
  const first = (page.page - 1) * page.page_size + 1;
  const last = first + page.results.length - 1;
  const lines = columns([
    ['ID', 'TYPE', 'STATUS', 'TITLE', 'URL', 'LABELS', 'ERROR'],
    ...page.results.map((source) => [
      String(source.id),
      source.type,
      source.status,
      source.title ?? '',
      source.url ?? '',
      // The type label (first) is the TYPE column already.
      (source.labels ?? []).slice(1).join(', '),
      source.error,
    ]),
  ]);
  lines.push('', `Sources ${first}-${last} of ${page.count}, newest first.`);
  if (last < page.count) lines.push(`More on the next page: --page ${page.page + 1}${page.page_size === DEFAULT_PAGE_SIZE ? '' : ` --page-size ${page.page_size}`}`);
  return lines;
}

export async function run(context: CommandContext): Promise<number> {
  const page = positiveInteger(context.values, 'page', 'sources') ?? 1;
  const pageSize = positiveInteger(context.values, 'page-size', 'sources', MAX_SOURCE_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  const { slug, listing } = await withGuru(context, async ({ assistant }, { slug }) => ({
    slug,
    listing: await assistant.listDataSources(slug, { page, page_size: pageSize }),
  }));
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, listing);
  else writeLines(context.terminal.stdout, ...renderSources(listing, slug, commandLineOf(context.config)));
  return 0;
}
