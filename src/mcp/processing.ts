/**
 * Waiting for freshly added data sources to be processed, by polling the
 * listing the way any client of the spec would.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Assistant } from '../core/assistant.js';
import { MAX_SOURCE_PAGE_SIZE } from '../core/schemas.js';
import type { DataSource } from '../core/schemas.js';

export interface ProcessingOutcome {
  /** Sources that left NOT_PROCESSED (SUCCESS or FAIL), in the order of the ids asked for. */
  readonly finished: DataSource[];
  /** Ids still waiting when the time limit was reached. */
  readonly pending: number[];
}

export interface WaitOptions {
  readonly signal: AbortSignal;
  /** Called after every look at the listing with how many of the sources are finished. */
  readonly onPoll: (finished: number, total: number) => void;
  /** Longest pause between two looks; the first pauses are shorter, since small texts finish fast. */
  readonly pollIntervalMs?: number;
  readonly timeLimitMs?: number;
}

export async function waitForProcessing(
  assistant: Assistant,
  guru: string,
  ids: readonly number[],
  options: WaitOptions,
): Promise<ProcessingOutcome> {
  const longestPause = options.pollIntervalMs ?? 1000;
  let pause = Math.min(50, longestPause);
  const deadline = Date.now() + (options.timeLimitMs ?? 5 * 60_000);
  const wanted = [...new Set(ids)];
  for (;;) {
    options.signal.throwIfAborted();
    const current = await findSources(assistant, guru, wanted);
    const finished = wanted.flatMap((id) => {
      const source = current.get(id);
      return source !== undefined && source.status !== 'NOT_PROCESSED' ? [source] : [];
    });
    options.onPoll(finished.length, wanted.length);
    const pending = wanted.filter((id) => !finished.some((source) => source.id === id));
    if (pending.length === 0 || Date.now() >= deadline) return { finished, pending };
    await sleep(pause, undefined, { signal: options.signal });
    pause = Math.min(pause * 2, longestPause);
  }
}

async function findSources(assistant: Assistant, guru: string, ids: number[]): Promise<Map<number, DataSource>> {
  const wanted = new Set(ids);
  const found = new Map<number, DataSource>();
  for (let page = 1; found.size < wanted.size; page++) {
    const listing = await assistant.listDataSources(guru, { page, page_size: MAX_SOURCE_PAGE_SIZE });
    for (const source of listing.results) if (wanted.has(source.id)) found.set(source.id, source);
    if (listing.results.length < MAX_SOURCE_PAGE_SIZE) break;
  }
  return found;
}
