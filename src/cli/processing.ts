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

export const isFailed = (row: { readonly status: string }): boolean => row.status === 'FAIL' || row.status === 'MISSING';

export function writeSourceRows(context: CommandContext, rows: readonly SourceRow[]): void {
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) {
    writeJson(stdout, rows);
    return;
  }
  writeLines(
    stdout,
    ...columns([['ID', 'TYPE', 'STATUS', 'NAME', 'ERROR'], ...rows.map((row) => [String(row.id), row.type, row.status, row.name, row.error])]),
  );
}

/** Says how many failed on stderr; the exit code of the command. */
export function exitCodeOf(context: CommandContext, rows: readonly { readonly status: string }[], verb = 'failed to process'): number {
  const failed = rows.filter(isFailed);
  if (failed.length === 0) return 0;
  context.terminal.stderr.write(`guru-mcp: ${failed.length} of ${rows.length} sources ${verb}\n`);
  return 1;
}
