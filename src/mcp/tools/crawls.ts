/** `start_crawl`, `crawl_status`, `stop_crawl`: discovering a website's pages, and adding them as sources. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { Crawl } from '../../core/schemas.js';
import { submitUrls } from '../../core/submit-urls.js';
import { waitForCrawl } from '../../core/wait-for-crawl.js';
import { ProgressReporter, type ToolExtra } from '../progress.js';
import { toolResult } from '../results.js';
import { MAX_LISTED_SOURCES } from '../source-lists.js';
import { AddedSources, MAX_LISTED_URLS, MAX_TEXT_URLS, renderAdded, renderUrlList, summarizeSubmission } from '../url-lists.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

/** How long start_crawl with wait (or add) waits before answering with the crawl still RUNNING. */
export const CRAWL_WAIT_LIMIT_MS = 10 * 60_000;
/** Between two looks at a running crawl; gentle on a remote service's rate limit. */
const POLL_INTERVAL_MS = 1000;
/** The guru's limit of web pages on the local engine, for the model's planning. */
const WEB_PAGE_LIMIT = 1500;

const CrawlId = z.number().int().min(1).describe('id from start_crawl');

const StartCrawlParameters = lazySchema(() => z.object({
  url: z
    .string()
    .min(1)
    .max(4096)
    .describe(
      'Only URLs beginning with it are crawled',
    ),
  ignore_query_params: z
    .boolean()
    .default(true)
    .describe('false: keep URL query strings'),
  wait: z
    .boolean()
    .default(false)
    .describe(
      'Return when it ends (up to 10 min)',
    ),
  add: z
    .boolean()
    .default(false)
    .describe(
      `Then add the pages (up to ${WEB_PAGE_LIMIT} a guru)`,
    ),
  guru_slug: guruSlugParameter,
}));
type StartCrawlParameters = z.infer<typeof StartCrawlParameters>;

const CrawlStatusParameters = lazySchema(() => z.object({
  crawl_id: CrawlId,
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('First URL to return (next_offset)'),
  guru_slug: guruSlugParameter,
}));
type CrawlStatusParameters = z.infer<typeof CrawlStatusParameters>;

const StopCrawlParameters = lazySchema(() => z.object({ crawl_id: CrawlId, guru_slug: guruSlugParameter }));
type StopCrawlParameters = z.infer<typeof StopCrawlParameters>;

/** The spec's crawl object, its URL list cut to one part. */
const CrawlResult = lazySchema(() => Crawl.extend({
  status: Crawl.shape.status.describe('RUNNING, COMPLETED, STOPPED (by stop_crawl) or FAILED (error_message says why)'),
  discovered_urls: Crawl.shape.discovered_urls.describe(
    `URLs discovered, in the order found; at most ${MAX_LISTED_URLS} per result, ${MAX_LISTED_SOURCES} when start_crawl added them (see next_offset)`,
  ),
  error_message: Crawl.shape.error_message.describe('Why the crawl failed, or why it ended early (e.g. the link limit was reached)'),
  total_discovered: z.number().int().describe('URLs the crawl has discovered in all'),
  truncated: z.boolean().describe('true when discovered_urls holds only part of the list'),
  next_offset: z
    .number()
    .int()
    .nullable()
    .describe('Pass as offset to crawl_status for the URLs after these; null when discovered_urls runs to the end of the list'),
}));
type CrawlResult = z.infer<typeof CrawlResult>;

const StartedCrawlResult = lazySchema(() => CrawlResult.extend({
  added: AddedSources.optional().describe('Only with add: true, once the crawl completed: what became of the discovered pages'),
}));

/** The crawl with `limit` of its URLs from `offset` on. */
function partOf(crawl: Crawl, offset: number, limit = MAX_LISTED_URLS): CrawlResult {
  const total = crawl.discovered_urls.length;
  const urls = crawl.discovered_urls.slice(offset, offset + limit);
  const end = offset + urls.length;
  return {
    ...crawl,
    discovered_urls: urls,
    total_discovered: total,
    truncated: offset > 0 || end < total,
    next_offset: end < total ? end : null,
  };
}

/** The crawl for the model: where it stands, the first URLs, and what to do next. `offset` is that of `part`. */
function renderCrawl(part: CrawlResult, offset: number, options: { readonly added?: boolean } = {}): string {
  const total = part.total_discovered;
  const queries = part.ignore_query_params ? 'query strings ignored' : 'query strings kept';
  const lines = [`Crawl ${part.id} of ${part.url} (${queries}): ${part.status}, ${total} URL(s) discovered.`];
  if (part.error_message) lines.push(`Error: ${part.error_message}`);
  const shown = part.discovered_urls.length;
  if (shown > 0) {
    lines.push(part.truncated ? `Discovered URLs ${offset + 1}–${offset + shown} of ${total}:` : 'Discovered URLs:');
    const onlyStructured = Math.max(0, shown - MAX_TEXT_URLS);
    const where =
      part.next_offset === null
        ? 'the structured content lists them'
        : [
            ...(onlyStructured > 0 ? [`the structured content lists ${onlyStructured} of them`] : []),
            `crawl_status with offset=${part.next_offset} returns the ones after`,
          ].join('; ');
    lines.push(...renderUrlList(part.discovered_urls, total - offset - shown, where));
  } else if (offset > 0) {
    lines.push(`offset=${offset} is past the end of the ${total} URL(s).`);
  }
  if (part.status === 'RUNNING') {
    lines.push(`It runs in the background: call crawl_status with crawl_id=${part.id} to follow it, stop_crawl to end it early.`);
  } else if (total > 0 && !options.added) {
    lines.push(
      `The pages are not in the knowledge base yet: add them with add_sources (website_urls), or start a crawl with add: true. A guru holds at most ${WEB_PAGE_LIMIT} web pages.`,
    );
  }
  return lines.join('\n');
}

export function registerCrawlTools(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'start_crawl',
    {
      title: 'Crawl a website',
      description:
        `Discover a website's pages under url (at most 1500) to add as sources. Returns the RUNNING crawl (see crawl_status); wait: true waits for its end, add: true also adds the pages.`,
      inputSchema: StartCrawlParameters,
      outputSchema: StartedCrawlResult,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guarded(context, 'start_crawl', 'start_crawl', async (args: StartCrawlParameters, extra) => {
      const guru = await context.gurus.select('start_crawl', args.guru_slug);
      const started = await context.assistant.startCrawl(guru, { url: args.url, ignore_query_params: args.ignore_query_params });
      if (!args.wait && !args.add) {
        const part = partOf(started, 0);
        return toolResult(part, renderCrawl(part, 0));
      }
      const crawl = await waitWithProgress(context, guru, started.id, extra);
      // With add the pages become sources, and the URLs list is only a reminder of what was found.
      const part = partOf(crawl, 0, args.add ? MAX_LISTED_SOURCES : MAX_LISTED_URLS);
      if (!args.add) return toolResult(part, renderCrawl(part, 0));
      if (crawl.status !== 'COMPLETED') {
        const why = crawl.status === 'RUNNING' ? 'it was still running when the wait ended' : `it ended ${crawl.status}`;
        return toolResult(part, `${renderCrawl(part, 0)}\nNothing was added: ${why}.`);
      }
      const submission = await submitUrls(context.assistant, guru, 'website_urls', crawl.discovered_urls);
      const added = summarizeSubmission(guru, crawl.discovered_urls, submission);
      const text = [renderCrawl(part, 0, { added: true })];
      if (crawl.discovered_urls.length > 0) text.push(renderAdded(added, 'web pages'));
      return toolResult({ ...part, added }, text.join('\n'));
    }),
  );

  server.registerTool(
    'crawl_status',
    {
      title: 'Follow a website crawl',
      description:
        `A crawl's status and discovered URLs, ${MAX_LISTED_URLS} at a time: pass next_offset as offset while it is not null.`,
      inputSchema: CrawlStatusParameters,
      outputSchema: CrawlResult,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'crawl_status', 'crawl_status', async (args: CrawlStatusParameters) => {
      const guru = await context.gurus.select('crawl_status', args.guru_slug);
      const part = partOf(await context.assistant.crawlStatus(guru, args.crawl_id), args.offset);
      return toolResult(part, renderCrawl(part, args.offset));
    }),
  );

  server.registerTool(
    'stop_crawl',
    {
      title: 'Stop a website crawl',
      description:
        'Stop a running crawl, keeping the URLs found so far.',
      inputSchema: StopCrawlParameters,
      outputSchema: CrawlResult,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'stop_crawl', 'stop_crawl', async (args: StopCrawlParameters) => {
      const guru = await context.gurus.select('stop_crawl', args.guru_slug);
      const part = partOf(await context.assistant.stopCrawl(guru, args.crawl_id), 0);
      return toolResult(part, renderCrawl(part, 0));
    }),
  );
}

/** Follows the crawl until it ends or CRAWL_WAIT_LIMIT_MS pass; cancelling the call leaves the crawl running. */
async function waitWithProgress(context: ToolContext, guru: string, crawlId: number, extra: ToolExtra): Promise<Crawl> {
  const progress = new ProgressReporter(extra, context);
  const crawl = await waitForCrawl(context.assistant, guru, crawlId, {
    signal: extra.mcpReq.signal,
    onProgress: heartbeat(progress),
    timeLimitMs: CRAWL_WAIT_LIMIT_MS,
    intervalMs: POLL_INTERVAL_MS,
  });
  await progress.flush();
  return crawl;
}

/**
 * A notification whenever more URLs are found, and a smaller step every ten
 * quiet polls, so that clients which reset their timeout on progress keep
 * waiting. Progress must grow, so the quiet steps approach the next whole
 * number without reaching it.
 */
function heartbeat(progress: ProgressReporter): (discovered: number) => void {
  let last = -1;
  let quietPolls = 0;
  return (discovered) => {
    if (discovered > last) {
      last = discovered;
      quietPolls = 0;
      progress.report(discovered, `${discovered} URL(s) discovered`);
    } else if (++quietPolls % 10 === 0) {
      progress.report(discovered + (0.9 * quietPolls) / (quietPolls + 10), `${discovered} URL(s) discovered; still crawling`);
    }
  };
}
