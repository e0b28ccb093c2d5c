/**
 * Several processes on one data directory (IDE windows, a server and the CLI):
 * writes wait for each other instead of failing, and work queued or left
 * behind by one process is done by another.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForSources } from '../../src/core/wait-for-sources.js';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { leaseOwner } from '../../src/engine/store/jobs.js';
import { runCli } from '../cli/run-cli.js';
import { startLoopbackServer } from '../support/loopback-server.js';

describe('several processes on one data directory', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'guru-processes-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets concurrent writers wait for each other instead of failing', async () => {
    const setup = await runCli(['guru', 'create', 'shared', '--data-dir', dir]);
    expect(setup.code).toBe(0);
    const files = Array.from({ length: 4 }, (_, i) => {
      const file = join(dir, `doc-${i}.md`);
      writeFileSync(file, `# Document ${i}\n\nThe okapi number ${i} grazes in the forest.\n`);
      return file;
    });
    const runs = await Promise.all(files.map((file) => runCli(['add', 'shared', file, '--data-dir', dir])));
    for (const run of runs) expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/locked/) });

    const engine = await LocalEngine.open({ dataDir: dir });
    try {
      expect((await engine.semanticSearch('shared', { question: 'okapi' })).total_sources).toBe(4);
    } finally {
      await engine.close();
    }
  });

  it('processes work that another process queued and left', async () => {
    const engine = await LocalEngine.open({ dataDir: dir });
    try {
      await engine.createGuru({ slug: 'shared' });
      const added = await runCli(['add', 'shared', '--name', 'note', '--no-wait', '--data-dir', dir], {
        input: 'The quokka smiles at visitors.',
      });
      expect(added.code).toBe(0);
      const [source] = (await engine.listDataSources('shared', { page: 1, page_size: 10 })).results;
      // Polls the listing only: the running engine must notice the new job by itself.
      const [outcome] = await waitForSources(engine, 'shared', [source!.id], { timeLimitMs: 10_000 });
      expect(outcome?.source?.status).toBe('SUCCESS');
    } finally {
      await engine.close();
    }
  });

  it('takes over at once a job leased by a process of this machine that has died', async () => {
    const first = await LocalEngine.open({ dataDir: dir });
    await first.createGuru({ slug: 'shared' });
    await first.close();
    // A finished child process stands in for a server that was killed mid-job.
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    const db = new Database(join(dir, 'guru.sqlite'));
    const now = Date.now();
    const { id } = db
      .prepare(`INSERT INTO data_sources (guru_id, type, name, title, content, date_created) VALUES (1, 'TEXT', 'n', 'n', 'The tapir wades.', ?) RETURNING id`)
      .get(new Date().toISOString()) as { id: number };
    db.prepare(
      `INSERT INTO jobs (kind, source_id, attempts, available_at, lease_owner, lease_expires_at, created_at)
       VALUES ('process_source', ?, 1, ?, ?, ?, ?)`,
    ).run(id, now, `${leaseOwner('x').host}/${deadPid}/x`, now + 600_000, now);
    db.close();

    const second = await LocalEngine.open({ dataDir: dir });
    try {
      await second.whenIdle();
      const [source] = (await second.listDataSources('shared', { page: 1, page_size: 10 })).results;
      expect(source?.status).toBe('SUCCESS');
    } finally {
      await second.close();
    }
  });

  it('keeps the lease of a read that lasts many leases: another process does not take the job', async () => {
    // Short leases, so that the read below outlasts several of them.
    const processing = { concurrency: 6, perHost: 4, leaseMs: 300 };
    let arrived: () => void = () => {};
    const requested = new Promise<void>((resolve) => (arrived = resolve));
    const site = await startLoopbackServer({
      '/slow': async (_request, response) => {
        arrived();
        await sleep(2_000);
        response.writeHead(200, { 'content-type': 'text/plain' }).end('The okapi reads slowly.');
      },
    });
    const first = await LocalEngine.open({ dataDir: dir, allowPrivateNetwork: true, processing });
    let second: LocalEngine | undefined;
    try {
      await first.createGuru({ slug: 'shared' });
      await first.createDataSources('shared', { website_urls: [site.url('/slow')] });
      await requested;
      second = await LocalEngine.open({ dataDir: dir, allowPrivateNetwork: true, processing });
      await first.whenIdle();
      await second.whenIdle();
      const [source] = (await first.listDataSources('shared', { page: 1, page_size: 10 })).results;
      expect(source?.status).toBe('SUCCESS');
      expect(site.requests.map((request) => request.path)).toEqual(['/slow']);
    } finally {
      await second?.close();
      await first.close();
      await site.close();
    }
  });
});
