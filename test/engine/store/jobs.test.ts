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
  let sources: SourceRepository;
  let jobs: JobRepository;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-jobs-'));
    db = openDatabase(dir);
    guruId = (await new GuruRepository(new SqliteSql(db)).create('acme', 'Acme', '2026-11-28T00:00:00Z'))!.id;
    sources = new SourceRepository(db);
    jobs = new JobRepository(db);
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const addText = (name: string) =>
    sources.insertDocument({ guruId, type: 'TEXT', name, title: name, content: name, private: false, labels: [], now: '2026-11-28T00:00:00Z' }).id;

  it("does not let a claim on a deleted source's job renew the next job given its id", () => {
    const owner = leaseOwner('test');
    const deleted = addText('deleted');
    jobs.enqueue('process_source', deleted, null, 0);
    const stale = jobs.claim(owner, 1, 10_000)!;
    db.transaction(() => sources.delete(guruId, [deleted])).immediate();
    const next = addText('next');
    jobs.enqueue('process_source', next, null, 0);
    const current = jobs.claim(owner, 2, 10_000)!;
    // The same job id and attempt count, held by the same owner: only the source tells them apart.
    expect(current).toMatchObject({ id: stale.id, attempts: stale.attempts });
    expect(jobs.renew(stale, owner, 20_000)).toBe(false);
    expect(jobs.renew(current, owner, 20_000)).toBe(true);
  });

  it("gives no source a deleted source's id", () => {
    const first = addText('first');
    const newest = addText('newest');
    db.transaction(() => sources.delete(guruId, [newest])).immediate();
    expect(addText('later')).toBe(newest + 1);
    expect(first).toBeLessThan(newest);
  });
});
