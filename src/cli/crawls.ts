/** What the crawl commands share: the crawl id argument, a crawl as text, and the discovery counter. */
import type { Crawl } from '../core/schemas.js';
import { UsageError } from './failures.js';
import type { CommandLine } from './invocation.js';
import { shellQuote } from './output.js';
import type { ProgressStream } from './progress.js';
import { controlled, writeControlled } from './terminal-text.js';

export function crawlIdOf(argument: string, command: string): number {
  const id = Number(argument);
  if (!/^\d{1,15}$/.test(argument) || id < 1) throw new UsageError(`crawl ids are whole numbers from 1 (as printed by guru-mcp crawl), not "${argument}"`, command);
  return id;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** The status line, the error if any (unless `withError` is false), how to follow a running one, then (unless `withUrls` is false) every URL found. */
export function renderCrawl(
  crawl: Crawl,
  slug: string,
  command: CommandLine,
  options: { readonly withUrls?: boolean; readonly withError?: boolean } = {},
): string[] {
  const queries = crawl.ignore_query_params ? 'query strings ignored' : 'query strings kept';
  const found = crawl.status === 'RUNNING' ? 'discovered so far' : 'discovered';
  const lines = [`Crawl ${crawl.id} ${crawl.status}: ${plural(crawl.discovered_urls.length, 'URL')} ${found} under ${crawl.url} (${queries})`];
  if (crawl.error_message && options.withError !== false) lines.push(`Error: ${crawl.error_message}`);
  if (crawl.status === 'RUNNING') {
    const args = `${shellQuote(slug)} ${crawl.id}`;
    lines.push(`Follow it: ${command(`crawl-status ${args}`)}    Stop it: ${command(`crawl-stop ${args}`)}`);
  }
  if (options.withUrls !== false) lines.push(...crawl.discovered_urls);
  return lines;
}

export interface Counter {
  update(count: number): void;
  finish(): void;
}

/**
 * "Crawling URL: N URLs discovered", redrawn in place on a terminal; elsewhere a
 * plain line whenever the count changes, so logs stay readable.
 */
export function createDiscoveryCounter(stream: ProgressStream, url: string): Counter {
  const text = (count: number) => `Crawling ${url}: ${plural(count, 'URL')} discovered`;
  let shown = -1;
  let finished = false;
  return {
    update(count) {
      if (finished || count === shown) return;
      shown = count;
      if (stream.isTTY) writeControlled(stream, controlled`\r${text(count)}\x1b[K`);
      else stream.write(`${text(count)}\n`);
    },
    finish() {
      if (finished) return;
      finished = true;
      if (stream.isTTY && shown >= 0) stream.write('\n');
    },
  };
}
