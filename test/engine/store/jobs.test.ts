import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { GuruRepository } from '../../../src/engine/gurus/repository.js';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';
import { JobRepository, leaseOwner } from '../../../src/engine/store/jobs.js';
import { SourceRepository } from '../../../src/engine/store/sources.js';

describe('the job queue when sources are deleted', () => {
  let dir: string;
  let db: Db;
  let guruId: number;
  let sql: SqliteSql;
  let sources: SourceRepository;
  let jobs: JobRepository;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-jobs-'));
    db = openDatabase(dir);
    guruId = (await new GuruRepository(new SqliteSql(db)).create('acme', 'Acme', '2026-11-28T00:00:00Z'))!.id;
    sql = new SqliteSql(db);
    sources = new SourceRepository(sql);
    jobs = new JobRepository(sql);
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const addText = async (name: string) =>
    (await sources.insertDocument({ guruId, type: 'TEXT', name, title: name, content: name, private: false, labels: [], now: '2026-11-28T00:00:00Z' })).id;

  it("does not let a claim on a deleted source's job renew the next job given its id", async () => {
    const owner = leaseOwner('test');
    const deleted = await addText('deleted');
    await jobs.enqueue('process_source', [{ id: deleted, host: null }], 0);
    const stale = (await jobs.claim(owner, 1, 10_000))!;
    await sql.transaction((tx) => new SourceRepository(tx).delete(guruId, [deleted]));
    const next = await addText('next');
    await jobs.enqueue('process_source', [{ id: next, host: null }], 0);
    const current = (await jobs.claim(owner, 2, 10_000))!;
    // The same job id and attempt count, held by the same owner: only the source tells them apart.
    expect(current).toMatchObject({ id: stale.id, attempts: stale.attempts });
    expect(await jobs.renew(stale, owner, 20_000)).toBe(false);
    expect(await jobs.renew(current, owner, 20_000)).toBe(true);
  });

  it('renews only the leases that end before the time given', async () => {
    const owner = leaseOwner('test');
    const [early, late] = [await addText('early'), await addText('late')];
    await jobs.enqueue('process_source', [{ id: early, host: null }], 0);
    const first = (await jobs.claim(owner, 1, 5_000))!;
    await jobs.enqueue('process_source', [{ id: late, host: null }], 0);
    const second = (await jobs.claim(owner, 1, 9_000))!;
    await jobs.renewAll(owner, 10_001, 8_000);
    const leases = await sql.all<{ id: number; until: number }>('SELECT id, lease_expires_at AS until FROM jobs ORDER BY id');
    expect(leases).toEqual([
      { id: first.id, until: 10_001 },
      { id: second.id, until: 9_001 },
    ]);
    await jobs.renewAll(owner, 12_000);
    expect((await sql.all<{ until: number }>('SELECT lease_expires_at AS until FROM jobs')).map(({ until }) => until)).toEqual([12_000, 12_000]);
  });

  it("gives no source a deleted source's id", async () => {
    const first = await addText('first');
    const newest = await addText('newest');
    await sql.transaction((tx) => new SourceRepository(tx).delete(guruId, [newest]));
    expect(await addText('later')).toBe(newest + 1);
    expect(first).toBeLessThan(newest);
  });
});
