/**
 * Waiting for data sources to be processed, the way any client of the spec
 * follows processing: by polling the listing. Works over any backend.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSources } from './assistant.js';
import { MAX_SOURCE_PAGE_SIZE, type DataSource } from './schemas.js';

export interface SourceOutcome {
  readonly id: number;
  /** The source as last listed; undefined when it is no longer listed (deleted meanwhile). */
  readonly source: DataSource | undefined;
}

export interface WaitForSourcesOptions {
  readonly signal?: AbortSignal;
  /** Called after every look at the listing with how many of the sources are settled. */
  readonly onProgress?: (settled: number, total: number) => void;
  /** Stop waiting after this long, leaving the rest NOT_PROCESSED; no limit by default. */
  readonly timeLimitMs?: number;
  /** Longest pause between two looks; the first are shorter, since small texts finish fast. */
  readonly maxIntervalMs?: number;
}

/** Settled: processed (SUCCESS or FAIL) or gone. */
export const isSettled = (outcome: SourceOutcome): boolean => outcome.source?.status !== 'NOT_PROCESSED';

/** One look at the listing: the current state of each wanted source. */
async function lookUp(sources: DataSources, guru: string, ids: readonly number[]): Promise<SourceOutcome[]> {
  const wanted = new Set(ids);
  const found = new Map<number, DataSource>();
  for (let page = 1; found.size < wanted.size; page++) {
    const listing = await sources.listDataSources(guru, { page, page_size: MAX_SOURCE_PAGE_SIZE });
    for (const source of listing.results) if (wanted.has(source.id)) found.set(source.id, source);
    if (listing.results.length === 0 || page * listing.page_size >= listing.count) break;
  }
  return ids.map((id) => ({ id, source: found.get(id) }));
}

/** Resolves once every source is settled or the time limit is up; outcomes keep the order of `ids`. */
export async function waitForSources(
  sources: DataSources,
  guru: string,
  ids: readonly number[],
  options: WaitForSourcesOptions = {},
): Promise<SourceOutcome[]> {
  const wanted = [...new Set(ids)];
  const longest = options.maxIntervalMs ?? 1000;
  const deadline = Date.now() + (options.timeLimitMs ?? Infinity);
  let pause = Math.min(50, longest);
  for (;;) {
    options.signal?.throwIfAborted();
    const outcomes = await lookUp(sources, guru, wanted);
    const settled = outcomes.filter(isSettled).length;
    options.onProgress?.(settled, wanted.length);
    if (settled === wanted.length || Date.now() >= deadline) {
      const byId = new Map(outcomes.map((outcome) => [outcome.id, outcome]));
      return ids.map((id) => byId.get(id) ?? { id, source: undefined });
    }
    await sleep(pause, undefined, { signal: options.signal });
    pause = Math.min(pause * 2, longest);
  }
}
