/**
 * Whether a source on a loopback address may be read does not depend on which process reads it:
 * a `serve` started with GURU_ALLOW_PRIVATE_NETWORK=1 takes the queue's work, but what a CLI
 * without the setting adds or reindexes is refused, as that CLI's own `crawl` is. Two real
 * processes on one data directory, as a user runs them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataSource } from '../../src/core/schemas.js';
import { runCli } from '../cli/run-cli.js';
import { serveGuru, type ServedGuru } from '../support/serve.js';
import { respond, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

const PAGE = '<!DOCTYPE html><html><head><title>Lighthouse</title></head><body><main><h1>Lighthouse</h1><p>The keeper polishes the lamp every morning.</p></main></body></html>';

describe('the private-network permission across processes', () => {
  let served: ServedGuru;
  let site: LoopbackServer;

  beforeEach(async () => {
    site = await startLoopbackServer({ '/x.html': respond(PAGE) });
    served = await serveGuru('docs');
  });

  afterEach(async () => {
    await served?.close();
    await site?.close();
  });

  const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--data-dir', served.dataDir], { env });

  async function sources(): Promise<DataSource[]> {
    const reply = await request(`${served.base}/api/v1/docs/data-sources/`, { headers: { 'x-api-key': served.apiKey } });
    return ((await reply.body.json()) as { results: DataSource[] }).results;
  }

  /** The one source once the server has processed it (polled: the server's writer takes the job when it looks next). */
  async function processed(): Promise<DataSource> {
    for (;;) {
      const [source] = await sources();
      if (source !== undefined && source.status !== 'NOT_PROCESSED') return source;
      await sleep(100);
    }
  }

  it('refuses what a process without the setting adds or reindexes, though the server doing the work has it', async () => {
    const url = site.url('/x.html');
    const refused = await cli(['add', 'docs', url, '--no-wait']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('127.0.0.1 is a loopback address; set GURU_ALLOW_PRIVATE_NETWORK=1');
    expect(await sources()).toEqual([]);

    // Added by a process with the setting, the server reads it.
    const added = await cli(['add', 'docs', url, '--no-wait'], { GURU_ALLOW_PRIVATE_NETWORK: '1' });
    expect(added.code, added.stderr).toBe(0);
    const read = await processed();
    expect(read).toMatchObject({ status: 'SUCCESS', title: 'Lighthouse' });
    const fetches = site.requests.length;

    // Reindexed by a process without it, the server refuses to fetch it again.
    const reindexed = await cli(['reindex', 'docs', String(read.id), '--no-wait']);
    expect(reindexed.code, reindexed.stderr).toBe(0);
    const failed = await processed();
    expect(failed.status).toBe('FAIL');
    expect(failed.error).toContain('the source was added or reindexed by a process without GURU_ALLOW_PRIVATE_NETWORK=1');
    expect(site.requests.length).toBe(fetches);
  });
});
