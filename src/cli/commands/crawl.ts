/** `guru-mcp crawl [<slug>] <url> [--keep-query] [--add] [--no-wait] [--verbose] [--json]` */
import type { Crawling } from '../../core/assistant.js';
import type { Crawl } from '../../core/schemas.js';
import { waitForCrawl } from '../../core/wait-for-crawl.js';
import { withGuru } from '../backend.js';
import { createDiscoveryCounter, renderCrawl } from '../crawls.js';
import { commandLineOf } from '../invocation.js';
import { CommandFailure, UsageError } from '../failures.js';
import { shellQuote, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { addUrls, refusalJson, reportAdded } from '../url-sources.js';
import { flag } from '../values.js';

/** The exit code of a person's Ctrl-C, as shells report a process ended by SIGINT. */
const INTERRUPTED = 130;

interface Followed {
  readonly crawl: Crawl;
  /** Ctrl-C (or SIGTERM) ended the wait, and the crawl was stopped. */
  readonly interrupted: boolean;
}

/**
 * Shows the count of URLs found until the crawl ends. Ctrl-C stops the crawl
 * itself, not only the wait: a crawl nobody follows would go on filling the
 * data directory (and, on the embedded engine, end FAILED with this process).
 */
async function follow(context: CommandContext, crawling: Crawling, slug: string, started: Crawl, intervalMs: number): Promise<Followed> {
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const counter = createDiscoveryCounter(context.terminal.stderr, started.url);
  try {
    const crawl = await waitForCrawl(crawling, slug, started.id, { signal: controller.signal, onProgress: (count) => counter.update(count), intervalMs });
    return { crawl, interrupted: false };
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    counter.finish();
    return { crawl: await crawling.stopCrawl(slug, started.id), interrupted: true };
  } finally {
    counter.finish();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

const completed = (crawl: Crawl): boolean => crawl.status === 'COMPLETED';

/** 0 for a crawl that completed; otherwise says how it ended, with its error, on stderr, and 1. */
function exitCodeOfCrawl(context: CommandContext, crawl: Crawl): number {
  if (completed(crawl)) return 0;
  const how = crawl.status === 'STOPPED' ? 'was stopped before it completed' : `ended ${crawl.status}`;
  context.terminal.stderr.write(`guru-mcp: crawl ${crawl.id} ${how}${crawl.error_message ? `: ${crawl.error_message}` : ''}\n`);
  return 1;
}

export async function run(context: CommandContext): Promise<number> {
  const add = flag(context.values, 'add');
  const noWait = flag(context.values, 'no-wait');
  const json = flag(context.values, 'json');
  const { stdout, stderr } = context.terminal;
  const command = commandLineOf(context.config);
  if (add && noWait) throw new UsageError('--add adds the pages once the crawl has ended; leave out --no-wait', 'crawl');
  if (noWait && context.config.backend === 'local') {
    throw new CommandFailure(
      '--no-wait needs a server to run the crawl',
      'The embedded engine crawls inside this command, so the crawl would end with it. Leave out --no-wait, or use the remote backend (GURU_BACKEND=remote) to crawl on a server.',
    );
  }

  return withGuru(context, async (backend, { slug, args: [url] }) => {
    const { assistant } = backend;
    const started = await assistant.startCrawl(slug, { url: url!, ignore_query_params: !flag(context.values, 'keep-query') });
    if (noWait) {
      if (json) writeJson(stdout, started);
      else writeLines(stdout, ...renderCrawl(started, slug, command));
      return 0;
    }

    // A remote service counts every look against its rate limit.
    const { crawl, interrupted } = await follow(context, assistant, slug, started, backend.kind === 'remote' ? 1000 : 500);
    if (interrupted) {
      if (json) writeJson(stdout, crawl);
      else writeLines(stdout, ...renderCrawl(crawl, slug, command));
      const found = crawl.discovered_urls.length;
      stderr.write(
        `guru-mcp: interrupted: crawl ${crawl.id} ${crawl.status}; the ${found} URL${found === 1 ? '' : 's'} found so far are kept (${command(`crawl-status ${shellQuote(slug)} ${crawl.id}`)})\n`,
      );
      return INTERRUPTED;
    }
    // A crawl that did not complete has its error said once, on stderr, by exitCodeOfCrawl.
    const withError = completed(crawl);
    if (!add) {
      if (json) writeJson(stdout, crawl);
      else writeLines(stdout, ...renderCrawl(crawl, slug, command, { withError }));
      return exitCodeOfCrawl(context, crawl);
    }

    if (!json) writeLines(stdout, ...renderCrawl(crawl, slug, command, { withUrls: false, withError }));
    if (crawl.status !== 'COMPLETED' || crawl.discovered_urls.length === 0) {
      if (json) writeJson(stdout, { crawl, sources: [], refused: null });
      return exitCodeOfCrawl(context, crawl);
    }
    const added = await addUrls(context, assistant, slug, 'website_urls', crawl.discovered_urls);
    if (json) writeJson(stdout, { crawl, sources: added.rows, refused: refusalJson(added.refusal) });
    return reportAdded(context, added, 'pages', json);
  }, { processing: add });
}
