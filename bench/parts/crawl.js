// Part `crawl`: crawling the PostgreSQL manual from its root, as a client would.
import console from 'node:console';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { dist, positiveInt, table } from '../lib/common.js';
import { openLocalBackend } from '../lib/engine.js';
import { ensureManual, manualDir, manualPages, serveFolder } from '../lib/manual-site.js';

const crawlRuns = positiveInt(process.env.GURU_BENCH_CRAWLS, 3);
const CRAWL_GOAL_SECONDS = 10;

/**
 * Crawls the manual from its root through the port, as a client would: start, then follow the
 * status (polled every 20 ms, so a time is at most that much late) until the crawl has ended.
 */
async function run() {
  const missing = ensureManual();
  if (missing !== undefined) {
    console.log(`\nNote: ${missing}; skipping the crawl benchmark.`);
    return { skipped: missing };
  }
  const pages = manualPages().length;
  const site = await serveFolder(manualDir);
  const { waitForCrawl } = await dist('core/wait-for-crawl.js');
  const runs = [];
  try {
    for (let i = 0; i < crawlRuns; i++) {
      console.log(`Crawling the PostgreSQL manual (${pages} pages from ${site.origin}), run ${i + 1} of ${crawlRuns}...`);
      const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-crawl-'));
      const backend = await openLocalBackend(dataDir, undefined);
      try {
        await backend.admin.createGuru({ slug: 'pg' });
        const started = performance.now();
        const crawl = await backend.assistant.startCrawl('pg', { url: `${site.origin}/`, ignore_query_params: true });
        const done = await waitForCrawl(backend.assistant, 'pg', crawl.id, { intervalMs: 20 });
        const seconds = (performance.now() - started) / 1000;
        runs.push({
          status: done.status,
          discovered: done.discovered_urls.length,
          seconds: Number(seconds.toFixed(2)),
          pagesPerSecond: Math.round(done.discovered_urls.length / seconds),
          error: done.error_message ?? null,
        });
      } finally {
        await backend.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await site.close();
  }
  return { pages, goalSeconds: CRAWL_GOAL_SECONDS, runs };
}

function print(result) {
  console.log(`\nCrawl of the PostgreSQL manual (${result.pages} HTML pages; goal: all found in under ${result.goalSeconds} s)`);
  console.log(
    table(
      ['run', 'status', 'discovered', 'seconds', 'pages/s', 'error'],
      result.runs.map((run, i) => [String(i + 1), run.status, String(run.discovered), run.seconds.toFixed(2), String(run.pagesPerSecond), run.error ?? '']),
    ),
  );
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'crawl', run, print };
