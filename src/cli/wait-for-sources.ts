/**
 * Waits for new data sources to be processed by polling the listing, which
 * every backend offers (the spec's way to follow processing).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSources } from '../core/assistant.js';
import type { DataSource } from '../core/schemas.js';

export interface SourceOutcome {
  readonly id: number;
  /** Undefined when the source is no longer listed (deleted meanwhile). */
  readonly source: DataSource | undefined;
}

export interface WaitOptions {
  /** Called after every poll with how many sources are done. */
  readonly onProgress?: (done: number, total: number) => void;
  readonly signal?: AbortSignal;
  readonly firstIntervalMs?: number;
  readonly maxIntervalMs?: number;
}

const PAGE_SIZE = 1000;

const isSettled = (outcome: SourceOutcome) => outcome.source === undefined || outcome.source.status !== 'NOT_PROCESSED';

/** One look at the listing: the current state of each wanted source. Newest sources come first. */
async function lookUp(sources: DataSources, guru: string, ids: readonly number[]): Promise<SourceOutcome[]> {
  const found = new Map<number, DataSource>();
  const wanted = new Set(ids);
  for (let page = 1; ; page++) {
    const listing = await sources.listDataSources(guru, { page, page_size: PAGE_SIZE });
    for (const source of listing.results) if (wanted.has(source.id)) found.set(source.id, source);
    const seenAll = listing.results.length === 0 || page * listing.page_size >= listing.count;
    if (found.size === wanted.size || seenAll) break;
  }
  return ids.map((id) => ({ id, source: found.get(id) }));
}

/** Resolves once none of the sources is NOT_PROCESSED; the outcomes keep the order of `ids`. */
export async function waitForSources(
  sources: DataSources,
  guru: string,
  ids: readonly number[],
  options: WaitOptions = {},
): Promise<SourceOutcome[]> {
  const maxInterval = options.maxIntervalMs ?? 1000;
  let interval = options.firstIntervalMs ?? 100;
  for (;;) {
    const outcomes = await lookUp(sources, guru, ids);
    const done = outcomes.filter(isSettled).length;
    options.onProgress?.(done, ids.length);
    if (done === ids.length) return outcomes;
    await sleep(interval, undefined, { signal: options.signal });
    interval = Math.min(maxInterval, Math.ceil(interval * 1.5));
  }
}
