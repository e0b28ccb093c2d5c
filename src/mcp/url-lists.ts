/**
 * Long URL lists in tool results (a crawl's pages, a channel's videos): how many
 * the structured content and the text carry, and the summary of adding such a
 * list to a guru as sources.
 */
import * as z from 'zod';
import { lazySchema } from '../core/lazy-schema.js';
import { CreatedDataSource } from '../core/schemas.js';
import type { UrlSubmission } from '../core/submit-urls.js';
import { MAX_LISTED_SOURCES } from './source-lists.js';

/** URLs one result's structured content lists at most; 500 URLs are some 40 KB of JSON. */
export const MAX_LISTED_URLS = 500;
/** URLs the text rendering lists at most. */
export const MAX_TEXT_URLS = 50;

export const AddedSources = lazySchema(() => z.object({
  guru_slug: z.string().describe('The guru the URLs were submitted to'),
  submitted: z.number().int().describe('URLs submitted'),
  added: z.number().int().describe('New sources accepted (status success); they are processed in the background'),
  existing: z.number().int().describe('URLs that were sources already (status exists)'),
  refused: z.number().int().describe('URLs not added'),
  refusal: z
    .string()
    .nullable()
    .describe("Why they were not added: the service's message, and the cause where it names one (usually the guru's limit of sources of that kind); null when none was refused"),
  results: z.array(CreatedDataSource).describe(`Per-URL results in order (id, type, url, status), at most the first ${MAX_LISTED_SOURCES}`),
  truncated: z.boolean().describe(`true when results lists only the first ${MAX_LISTED_SOURCES}; list_sources pages through every source, newest first`),
}));
export type AddedSources = z.infer<typeof AddedSources>;

export function summarizeSubmission(guru: string, urls: readonly string[], submission: UrlSubmission): AddedSources {
  const { results, refusal } = submission;
  return {
    guru_slug: guru,
    submitted: urls.length,
    added: results.filter((item) => item.status === 'success').length,
    existing: results.filter((item) => item.status === 'exists').length,
    refused: refusal?.urls.length ?? 0,
    refusal: refusal === undefined ? null : refusal.hint === undefined ? refusal.message : `${refusal.message}: ${refusal.hint}`,
    results: results.slice(0, MAX_LISTED_SOURCES),
    truncated: results.length > MAX_LISTED_SOURCES,
  };
}

/** `noun` is what one URL is, plural: "web pages", "videos". */
export function renderAdded(added: AddedSources, noun: string): string {
  const lines = [`Submitted ${added.submitted} ${noun} to guru "${added.guru_slug}": ${added.added} added as new sources, ${added.existing} already there, ${added.refused} not added.`];
  if (added.refusal !== null) lines.push(`Not added because the service refused them: ${added.refusal}`);
  if (added.added > 0) {
    lines.push('The new sources are processed in the background: list_sources shows when each reaches SUCCESS or FAIL.');
  }
  return lines.join('\n');
}

/**
 * The first MAX_TEXT_URLS of `urls` as a list, then how many more there are
 * (those of `urls` not shown plus `beyond`, the ones not in `urls` at all) and `where` they are.
 */
export function renderUrlList(urls: readonly string[], beyond: number, where: string): string[] {
  const shown = urls.slice(0, MAX_TEXT_URLS);
  const hidden = urls.length - shown.length + beyond;
  return [...shown.map((url) => `- ${url}`), ...(hidden > 0 ? [`…and ${hidden} more: ${where}`] : [])];
}
