import { hostname } from 'node:os';
import type { Db } from './database.js';

export type JobKind = 'process_source';

export interface JobRow {
  readonly id: number;
  readonly kind: JobKind;
  readonly source_id: number;
  readonly attempts: number;
}

/** Who holds a lease: `host/pid/instance`, so that leases of processes that died can be told apart. */
export interface LeaseOwner {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
}

export function leaseOwner(instance: string): LeaseOwner {
  const host = hostname();
  return { id: `${host}/${process.pid}/${instance}`, host, pid: process.pid };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The durable work queue. A job is leased by one process at a time; a lease
 * that runs out, or whose process on this machine has died, makes the job
 * available again, so a restart resumes whatever was left unfinished.
 */
export class JobRepository {
  readonly #enqueue;
  readonly #claim;
  readonly #complete;
  readonly #release;
  readonly #nextAvailable;
  readonly #owners;
  readonly #releaseOwner;

  constructor(db: Db) {
    this.#enqueue = db.prepare<[JobKind, number, number, number]>(
      `INSERT INTO jobs (kind, source_id, available_at, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (kind, source_id) DO UPDATE SET available_at = excluded.available_at, attempts = 0`,
    );
    this.#claim = db.prepare<[string, number, number, number], JobRow>(
      `UPDATE jobs SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1
       WHERE id = (
         SELECT id FROM jobs
         WHERE available_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at < ?)
         ORDER BY available_at, id LIMIT 1)
       RETURNING id, kind, source_id, attempts`,
    );
    this.#complete = db.prepare<[number]>('DELETE FROM jobs WHERE id = ?');
    this.#release = db.prepare<[number, number]>(
      'UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, available_at = ? WHERE id = ?',
    );
    this.#nextAvailable = db.prepare<[], { at: number | null }>(
      'SELECT min(max(available_at, coalesce(lease_expires_at, 0))) AS at FROM jobs',
    );
    this.#owners = db.prepare<[], { owner: string }>('SELECT DISTINCT lease_owner AS owner FROM jobs WHERE lease_owner IS NOT NULL');
    this.#releaseOwner = db.prepare<[string]>('UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?');
  }

  enqueue(kind: JobKind, sourceId: number, now: number): void {
    this.#enqueue.run(kind, sourceId, now, now);
  }

  /** Leases the next available job to `owner`, or returns undefined when none is ready. */
  claim(owner: LeaseOwner, now: number, leaseMs: number): JobRow | undefined {
    return this.#claim.get(owner.id, now + leaseMs, now, now);
  }

  complete(id: number): void {
    this.#complete.run(id);
  }

  /** Gives the job back, to be tried again at `availableAt`. */
  release(id: number, availableAt: number): void {
    this.#release.run(availableAt, id);
  }

  /** Frees the leases of processes on this machine that are no longer running. */
  releaseDeadLeases(self: LeaseOwner): number {
    let released = 0;
    for (const { owner } of this.#owners.all()) {
      const [host, pid] = owner.split('/');
      if (host !== self.host || owner === self.id || isAlive(Number(pid))) continue;
      released += this.#releaseOwner.run(owner).changes;
    }
    return released;
  }

  /** When the earliest job may next be claimed (epoch ms), or null when the queue is empty. */
  nextAvailableAt(): number | null {
    return this.#nextAvailable.get()?.at ?? null;
  }
}
