/**
 * Following sources through processing, as `add`, `upload` and `reindex` do:
 * a progress display on stderr while waiting, then one row per source.
 */
import type { DataSources } from '../core/assistant.js';
import type { DataSource } from '../core/schemas.js';
import { waitForSources, type SourceOutcome } from '../core/wait-for-sources.js';
import { columns, writeJson, writeLines } from './output.js';
import { createProgress } from './progress.js';
import type { CommandContext } from './spec.js';
import { flag } from './values.js';

/** Waits until every source is SUCCESS or FAIL (or gone), showing `label` and the count done. */
export async function waitWithProgress(
  context: CommandContext,
  sources: DataSources,
  slug: string,
  ids: readonly number[],
  label = 'Processing',
): Promise<SourceOutcome[]> {
  const progress = createProgress(context.terminal.stderr, label, new Set(ids).size);
  try {
    return await waitForSources(sources, slug, ids, { onProgress: (done) => progress.update(done) });
  } finally {
    progress.finish();
  }
}

/** One source in a command's summary. */
export interface SourceRow {
  readonly id: number;
  readonly type: string;
  /** The text's name, the page's title, or the URL while there is no title. */
  readonly name: string;
  readonly url?: string;
  /** NOT_PROCESSED, SUCCESS or FAIL; EXISTS for a URL already added (not waited for); MISSING when it vanished meanwhile. */
  readonly status: string;
  readonly error: string;
  /** What the request to add it answered, as the service says it: `success` (new, or a text replaced) or `exists` (already added). */
  readonly added?: string;
}

/** A source a command added, as the service answered: a created source, or a file read as a document (type `PDF`, `Word`, `Excel`). */
export interface AddedSource {
  readonly id: number;
  readonly type: string;
  readonly status: string;
  readonly title: string | null;
  readonly url?: string | undefined;
}

/**
 * The sources a create request answered, one per source: a URL given twice
 * (also as `URL#fragment`) is one source, answered `exists` the second time;
 * it counts as new when any of its answers says so.
 */
export function distinctSources<Source extends AddedSource>(created: readonly Source[]): Source[] {
  const byId = new Map<number, Source>();
  for (const item of created) {
    const seen = byId.get(item.id);
    if (seen === undefined) byId.set(item.id, item);
    else if (seen.status === 'exists' && item.status !== 'exists') byId.set(item.id, { ...seen, status: item.status });
  }
  return [...byId.values()];
}

/** The row of a source as last listed; `fallback` names it when the listing has no title. */
export function rowOf(id: number, type: string, fallback: string, source: DataSource | undefined, url?: string): SourceRow {
  return {
    id,
    type,
    name: source?.title ?? fallback,
    ...(url === undefined ? {} : { url }),
    status: source?.status ?? 'MISSING',
    error: source?.error ?? '',
  };
}

/** A created source as accepted, before any processing: NOT_PROCESSED, or EXISTS when it was already added. */
export function acceptedRow(item: AddedSource): SourceRow {
  return {
    id: item.id,
    type: item.type,
    name: item.title ?? item.url ?? '',
    ...(item.url === undefined ? {} : { url: item.url }),
    status: item.status === 'exists' ? 'EXISTS' : 'NOT_PROCESSED',
    error: '',
    added: item.status,
  };
}

/** Follows created sources (distinct, see distinctSources) through processing: one row each, in order. */
export async function followCreated(
  context: CommandContext,
  sources: DataSources,
  slug: string,
  created: readonly AddedSource[],
): Promise<SourceRow[]> {
  const outcomes = created.length === 0 ? [] : await waitWithProgress(context, sources, slug, created.map((item) => item.id));
  return created.map((item, index) => ({
    ...rowOf(item.id, item.type, item.title ?? item.url ?? '', outcomes[index]?.source, item.url),
    added: item.status,
  }));
}

export const isFailed = (row: { readonly status: string }): boolean => row.status === 'FAIL' || row.status === 'MISSING';

/** More rows than this show as counts by status and the failures, unless --verbose. */
const MAX_LISTED_ROWS = 20;

/** EXISTS (not waited for) reads "already added"; a source already added that was waited for keeps its status and says so. */
function statusLabel(row: SourceRow): string {
  if (row.status === 'EXISTS') return 'already added';
  return row.added === 'exists' ? `${row.status} (already added)` : row.status;
}

function sourceTable(rows: readonly SourceRow[]): string[] {
  return columns([['ID', 'TYPE', 'STATUS', 'NAME', 'ERROR'], ...rows.map((row) => [String(row.id), row.type, statusLabel(row), row.name, row.error])]);
}

/** "3 sources: 2 SUCCESS, 1 FAIL; 1 of them already added" */
function countsLine(rows: readonly SourceRow[]): string {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.status, (counts.get(row.status) ?? 0) + 1);
  const byStatus = [...counts].map(([status, count]) => `${count} ${status === 'EXISTS' ? 'already added' : status}`).join(', ');
  const already = rows.filter((row) => row.added === 'exists' && row.status !== 'EXISTS').length;
  return `${rows.length} source${rows.length === 1 ? '' : 's'}: ${byStatus}${already === 0 ? '' : `; ${already} of them already added`}`;
}

/** Text lines for the rows: every row, or (over MAX_LISTED_ROWS, without --verbose) the counts and the failures. */
export function renderSourceRows(rows: readonly SourceRow[], verbose: boolean): string[] {
  if (verbose || rows.length <= MAX_LISTED_ROWS) {
    const table = sourceTable(rows);
    return rows.some((row) => row.added === 'exists') ? [...table, '', countsLine(rows)] : table;
  }
  const failed = rows.filter(isFailed);
  return [
    countsLine(rows),
    ...(failed.length === 0 ? [] : ['', 'Failed:', ...sourceTable(failed)]),
    '',
    'Every source: --verbose, or --json.',
  ];
}

export function writeSourceRows(context: CommandContext, rows: readonly SourceRow[]): void {
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) writeJson(stdout, rows);
  else writeLines(stdout, ...renderSourceRows(rows, flag(context.values, 'verbose')));
}

/** Says how many failed on stderr; the exit code of the command. */
export function exitCodeOf(context: CommandContext, rows: readonly { readonly status: string }[], verb = 'failed to process'): number {
  const failed = rows.filter(isFailed);
  if (failed.length === 0) return 0;
  context.terminal.stderr.write(`guru-mcp: ${failed.length} of ${rows.length} sources ${verb}\n`);
  return 1;
}
