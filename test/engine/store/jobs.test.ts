/**
 * The job queue's claims on a real SQLite file: which job comes first, which are skipped, and a
 * database of the schema before jobs_lease upgraded with its jobs kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';
import { JobRepository, leaseOwner } from '../../../src/engine/store/jobs.js';
import { MIGRATIONS } from '../../../src/engine/store/migrations.js';

const NOW = 1_000_000;
const LEASE_MS = 10_000;
const HOST = '127.0.0.1:8080';

describe('job claims', () => {
  let dir: string;
  let db: Db;

  const open = (migrations = MIGRATIONS) => {
    db = openDatabase(dir, migrations);
    db.prepare(`INSERT INTO gurus (id, slug, name, date_created) VALUES (1, 'g', 'g', 'now')`).run();
  };
  const source = (id: number) => {
    db.prepare(`INSERT INTO data_sources (id, guru_id, type, url, date_created) VALUES (?, 1, 'WEBSITE', ?, 'now')`).run(id, `http://h/${id}`);
    return id;
  };
  /** A job of a new source, as another process may have left it: due at `availableAt`, held until `leasedUntil`. */
  const job = (sourceId: number, availableAt: number, host: string | null, leasedUntil: number | null = null) => {
    source(sourceId);
    db.prepare(
      `INSERT INTO jobs (kind, source_id, host, available_at, lease_owner, lease_expires_at, created_at)
       VALUES ('process_source', ?, ?, ?, ?, ?, 0)`,
    ).run(sourceId, host, availableAt, leasedUntil === null ? null : 'elsewhere/1/x', leasedUntil);
  };
  const claimAll = (jobs: JobRepository, busyHosts: readonly string[] = []) => {
    const owner = leaseOwner('test');
    const claimed: number[] = [];
    for (let job = jobs.claim(owner, NOW, LEASE_MS, busyHosts); job; job = jobs.claim(owner, NOW, LEASE_MS, busyHosts)) claimed.push(job.source_id);
    return claimed;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'guru-jobs-'));
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes the jobs due, earliest first, those whose lease ran out among them, and none held or not yet due', () => {
    open();
    job(1, NOW - 50, HOST);
    job(2, NOW - 100, HOST, NOW - 1); // its lease ran out: due again, and due first
    job(3, NOW - 100, HOST, NOW + 5_000); // held
    job(4, NOW + 1, HOST); // not yet due
    job(5, NOW - 50, null);
    job(6, NOW - 200, null, NOW); // held until this very moment
    job(7, NOW - 75, HOST, NOW - 500);
    const jobs = new JobRepository(db);
    expect(claimAll(jobs)).toEqual([2, 7, 1, 5]);
    const leased = db.prepare('SELECT source_id AS id, lease_expires_at AS until, attempts FROM jobs WHERE source_id IN (1, 2) ORDER BY source_id').all();
    expect(leased).toEqual([
      { id: 1, until: NOW + LEASE_MS, attempts: 1 },
      { id: 2, until: NOW + LEASE_MS, attempts: 1 },
    ]);
  });

  it('leaves the jobs of busy hosts, never those without a host', () => {
    open();
    job(1, NOW - 30, HOST);
    job(2, NOW - 20, null);
    job(3, NOW - 10, 'other.example:443', NOW - 1);
    expect(claimAll(new JobRepository(db), [HOST, 'other.example:443'])).toEqual([2]);
  });

  it('keeps the jobs of a database made before jobs were found by their lease, and claims them the same way', () => {
    open(MIGRATIONS.filter((migration) => migration.version <= 13));
    job(1, NOW - 10, HOST);
    job(2, NOW - 20, HOST, NOW + 1_000);
    job(3, NOW - 30, HOST, NOW - 1_000);
    db.close();
    db = openDatabase(dir);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'jobs_lease'`).get()).toEqual({ name: 'jobs_lease' });
    expect(db.prepare('SELECT source_id FROM jobs ORDER BY source_id').pluck().all()).toEqual([1, 2, 3]);
    expect(claimAll(new JobRepository(db))).toEqual([3, 1]);
  });
});
