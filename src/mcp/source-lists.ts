/**
 * Lists of data sources in tool results (what add_sources submitted, what
 * processing made of them): a few are listed one by one; many are summarised
 * as counts by status plus the failures with their errors, and list the first
 * MAX_LISTED_SOURCES, since list_sources pages through all of them.
 */
import * as z from 'zod';
import { lazySchema } from '../core/lazy-schema.js';
import { CreatedDataSource, DataSource } from '../core/schemas.js';

/** Sources a list of a result carries at most, in the structured content and the text alike. */
export const MAX_LISTED_SOURCES = 50;

const EVERY_SOURCE = 'list_sources pages through every source of the guru, newest first, with its status and error';

const Count = lazySchema(() => z.number().int().min(0));

export const SubmittedSources = lazySchema(() => z.object({
  results: z
    .array(CreatedDataSource)
    .describe(
      `One result per submitted item, in order: id, type, url (URL sources), title, status (success, or exists for a URL already added); texts are not echoed. At most the first ${MAX_LISTED_SOURCES} (see truncated)`,
    ),
  counts: z.record(z.string(), Count).describe('How many items got each status, e.g. {"success": 290, "exists": 10}'),
  truncated: z.boolean().describe(`true when results lists only the first ${MAX_LISTED_SOURCES}; ${EVERY_SOURCE}`),
}));
export type SubmittedSources = z.infer<typeof SubmittedSources>;

const FailedSource = lazySchema(() => DataSource.pick({ id: true, type: true, url: true, title: true, error: true }));

export const Processing = lazySchema(() => z.object({
  counts: z
    .object({ SUCCESS: Count, FAIL: Count, NOT_PROCESSED: Count })
    .describe('How many of the sources reached SUCCESS or FAIL, and how many were still NOT_PROCESSED when the wait ended'),
  failures: z.array(FailedSource).describe(`The sources that reached FAIL, with the error; at most the first ${MAX_LISTED_SOURCES}`),
  finished: z.array(DataSource).describe(`Sources that reached SUCCESS or FAIL, in the order given; at most the first ${MAX_LISTED_SOURCES}`),
  pending: z.array(z.number().int()).describe(`Ids still processing when the wait ended; at most the first ${MAX_LISTED_SOURCES}`),
  truncated: z.boolean().describe(`true when finished, failures or pending lists only part; ${EVERY_SOURCE}`),
}));
export type Processing = z.infer<typeof Processing>;

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

export function summarizeSubmitted(created: readonly CreatedDataSource[]): SubmittedSources {
  return {
    results: created.slice(0, MAX_LISTED_SOURCES),
    counts: countBy(created, (item) => item.status),
    truncated: created.length > MAX_LISTED_SOURCES,
  };
}

/** `finished`: the sources that reached SUCCESS or FAIL; `pending`: the ids of the ones still NOT_PROCESSED. */
export function summarizeProcessing(finished: readonly DataSource[], pending: readonly number[]): Processing {
  const failed = finished.filter((source) => source.status === 'FAIL');
  return {
    counts: { SUCCESS: finished.length - failed.length, FAIL: failed.length, NOT_PROCESSED: pending.length },
    failures: failed.slice(0, MAX_LISTED_SOURCES).map(({ id, type, url, title, error }) => ({ id, type, ...(url === undefined ? {} : { url }), title, error })),
    finished: finished.slice(0, MAX_LISTED_SOURCES),
    pending: pending.slice(0, MAX_LISTED_SOURCES),
    truncated: finished.length > MAX_LISTED_SOURCES || pending.length > MAX_LISTED_SOURCES,
  };
}

const named = (source: { title: string | null; url?: string | undefined }) => source.title ?? source.url ?? '';

const SUBMITTED_STATUSES: Readonly<Record<string, string>> = { success: 'new sources', exists: 'already sources' };

export function renderSubmitted(guru: string, submitted: SubmittedSources): string {
  const total = Object.values(submitted.counts).reduce((sum, count) => sum + count, 0);
  if (!submitted.truncated) {
    const lines = submitted.results.map((item) => `- #${item.id} ${item.type} "${named(item)}": ${item.status}`);
    return [`${total} source(s) submitted to guru "${guru}":`, ...lines].join('\n');
  }
  const counts = Object.entries(submitted.counts).map(([status, count]) => {
    const meaning = SUBMITTED_STATUSES[status];
    return `${count} ${status}${meaning === undefined ? '' : ` (${meaning})`}`;
  });
  return `${total} source(s) submitted to guru "${guru}": ${counts.join(', ')}.`;
}

export function renderProcessing(processing: Processing): string {
  const { counts } = processing;
  const later = 'Call list_sources later to see when they reach SUCCESS or FAIL.';
  if (!processing.truncated) {
    const lines = processing.finished.map((source) => `- #${source.id} "${named(source)}": ${source.status}${source.error ? ` (${source.error})` : ''}`);
    if (counts.NOT_PROCESSED > 0) lines.push(`Still processing: ${processing.pending.map((id) => `#${id}`).join(', ')}. ${later}`);
    return ['Processing results:', ...lines].join('\n');
  }
  const lines = [`Processing results: ${counts.SUCCESS} SUCCESS, ${counts.FAIL} FAIL, ${counts.NOT_PROCESSED} still processing.`];
  if (counts.FAIL > 0) {
    lines.push('Failed:', ...processing.failures.map((source) => `- #${source.id} "${named(source)}": ${source.error}`));
    const unlisted = counts.FAIL - processing.failures.length;
    if (unlisted > 0) lines.push(`…and ${unlisted} more failed.`);
  }
  if (counts.NOT_PROCESSED > 0) lines.push(later);
  lines.push(`The full list: ${EVERY_SOURCE}.`);
  return lines.join('\n');
}
