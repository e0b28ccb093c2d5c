/**
 * Adding a list of URLs found by the service (a crawl's pages, a channel's
 * videos) as sources, as `crawl --add` and `import --add` do: submitted in
 * batches up to the guru's limit, then followed through processing with the
 * progress bar, one row per source (summarised when there are many).
 */
import type { DataSources } from '../core/assistant.js';
import { submitUrls, type UrlField, type UrlRefusal } from '../core/submit-urls.js';
import { writeLines } from './output.js';
import { distinctSources, exitCodeOf, followCreated, renderSourceRows, type SourceRow } from './processing.js';
import type { CommandContext } from './spec.js';
import { flag } from './values.js';

export interface AddedUrls {
  readonly rows: SourceRow[];
  /** The URLs the service would not take, and why; undefined when all were added. */
  readonly refusal: UrlRefusal | undefined;
}

export async function addUrls(context: CommandContext, sources: DataSources, slug: string, field: UrlField, urls: readonly string[]): Promise<AddedUrls> {
  const { results, refusal } = await submitUrls(sources, slug, field, urls);
  return { rows: await followCreated(context, sources, slug, distinctSources(results)), refusal };
}

/** The JSON form of a refusal: every URL not added, the service's message and its hint. */
export function refusalJson(refusal: UrlRefusal | undefined): Record<string, unknown> | null {
  if (refusal === undefined) return null;
  return { urls: refusal.urls, message: refusal.message, ...(refusal.hint === undefined ? {} : { hint: refusal.hint }) };
}

/**
 * Prints the rows (text mode; JSON output is the caller's), says on stderr what
 * was not added and why, and answers the exit code: 1 when a URL was refused or
 * a source failed.
 */
export function reportAdded(context: CommandContext, added: AddedUrls, noun: string, json: boolean): number {
  if (!json && added.rows.length > 0) writeLines(context.terminal.stdout, ...renderSourceRows(added.rows, flag(context.values, 'verbose')));
  const { stderr } = context.terminal;
  const failedCode = exitCodeOf(context, added.rows);
  if (added.refusal === undefined) return failedCode;
  const total = added.rows.length + added.refusal.urls.length;
  stderr.write(`guru-mcp: ${added.refusal.urls.length} of ${total} ${noun} not added: ${added.refusal.message}\n`);
  if (added.refusal.hint !== undefined) stderr.write(`hint: ${added.refusal.hint}\n`);
  return 1;
}
