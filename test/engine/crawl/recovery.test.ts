/**
 * Opening the engine ends the crawls an earlier process left RUNNING. The recovery runs in the
 * background: open() stays synchronous, close() waits for it, and a failure is logged, never an
 * unhandled rejection (which would fail this run).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INTERRUPTED_MESSAGE } from '../../../src/engine/crawl/crawler.js';
import { CrawlRepository } from '../../../src/engine/crawl/repository.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { openDatabase } from '../../../src/engine/store/database.js';
import { leaseOwner } from '../../../src/engine/store/jobs.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { createLogger } from '../../../src/log.js';

describe('LocalEngine.open: crawls left running', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'guru-crawl-recovery-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** A crawl of a guru left RUNNING by a process that has exited; returns its id. */
  async function leftByDeadProcess(): Promise<number> {
    const child = spawn(process.execPath, ['-e', '']);
    await once(child, 'exit');
    const { host } = leaseOwner('x');
    const db = openDatabase(dir);
    try {
      const guruId = db.prepare<[], { id: number }>("INSERT INTO gurus (slug, name, date_created) VALUES ('docs', 'Docs', '2026-11-20T12:00:00Z') RETURNING id").get()!.id;
      const crawl = await new CrawlRepository(new SqliteSql(db)).create({
        guruId,
        url: 'https://example.com/',
        ignoreQueryParams: true,
        linkLimit: 1500,
        startTime: new Date().toISOString(),
        owner: { id: `${host}/${child.pid}/x`, host, pid: child.pid! },
        leaseExpiresAt: Date.now() + 60_000,
      });
      return crawl!.id;
    } finally {
      db.close();
    }
  }

  const statusOf = (id: number) => {
    const db = openDatabase(dir);
    try {
      return db.prepare<[number], { status: string; error_message: string | null }>('SELECT status, error_message FROM crawls WHERE id = ?').get(id);
    } finally {
      db.close();
    }
  };

  it('marks them FAILED without a request asking for them', async () => {
    const id = await leftByDeadProcess();
    const errors: string[] = [];
    const engine = await LocalEngine.open({ dataDir: dir, processQueue: false, logger: createLogger('error', (line) => errors.push(line)) });
    await engine.close();
    expect(statusOf(id)).toEqual({ status: 'FAILED', error_message: INTERRUPTED_MESSAGE });
    expect(errors).toEqual([]);
  });

  it('logs a recovery that fails, and the engine still opens and closes', async () => {
    await leftByDeadProcess();
    const db = openDatabase(dir);
    db.exec('DROP TABLE crawl_urls; DROP TABLE crawls;');
    db.close();
    const errors: string[] = [];
    const engine = await LocalEngine.open({ dataDir: dir, processQueue: false, logger: createLogger('error', (line) => errors.push(line)) });
    expect(await engine.listGurus()).toEqual([{ slug: 'docs', name: 'Docs', date_created: '2026-11-20T12:00:00Z' }]);
    await engine.close();
    expect(errors).toEqual([expect.stringMatching(/error could not end the crawls an earlier run left unfinished.*no such table: crawls/)]);
  });
});
