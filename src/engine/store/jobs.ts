import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Db } from './database.js';

/** Reading and indexing a source; making vectors for its chunks (when embeddings are configured). */
export type JobKind = 'process_source' | 'embed_source';

export interface JobRow {
  readonly id: number;
  readonly kind: JobKind;
  readonly source_id: number;
  readonly attempts: number;
  /** The host the job fetches from; null for work without network access. */
  readonly host: string | null;
  /** 1 when the process that queued the job might reach loopback and private addresses. */
  readonly private_network: 0 | 1;
}

export interface JobQueueSettings {
  /** Whether this process may reach loopback and private addresses (GURU_ALLOW_PRIVATE_NETWORK): recorded with the jobs it queues. */
  readonly privateNetwork?: boolean;
}

/** Who holds a lease: `host/pid/instance`, so that leases of processes that died can be told apart. */
export interface LeaseOwner {
  readonly id: string;
  /** Where `pid` means this process: the host name, with the PID namespace where there is one (containers). */
  readonly host: string;
  readonly pid: number;
}

/**
 * The host name and, on Linux, the PID namespace (`myhost:pid:[4026531836]`): containers that
 * share a data directory and a host name number their processes apart, and one must not judge
 * another's process dead by a PID of its own.
 */
function processSpace(): string {
  try {
    return `${hostname()}:${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return hostname();
  }
}

export function leaseOwner(instance: string): LeaseOwner {
  const host = processSpace();
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
  readonly #renew;
  readonly #renewOwner;
  readonly #privateNetwork: 0 | 1;

  constructor(db: Db, settings: JobQueueSettings = {}) {
    this.#privateNetwork = settings.privateNetwork === true ? 1 : 0;
    this.#enqueue = db.prepare<[JobKind, number, string | null, 0 | 1, number, number]>(
      `INSERT INTO jobs (kind, source_id, host, private_network, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, source_id) DO UPDATE SET host = excluded.host, private_network = excluded.private_network,
         available_at = excluded.available_at, attempts = 0, lease_owner = NULL, lease_expires_at = NULL`,
    );
    this.#claim = db.prepare<[string, number, number, number, string], JobRow>(
      `UPDATE jobs SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1
       WHERE id = (
         SELECT id FROM jobs
         WHERE available_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at < ?)
           AND (host IS NULL OR host NOT IN (SELECT value FROM json_each(?)))
         ORDER BY available_at, id LIMIT 1)
       RETURNING id, kind, source_id, attempts, host, private_network`,
    );
    // The source too: a job deleted with its source may see its id given to the next job queued,
    // which this process may then claim with the same attempt count.
    this.#renew = db.prepare<[number, number, string, number, number]>(
      'UPDATE jobs SET lease_expires_at = ? WHERE id = ? AND lease_owner = ? AND attempts = ? AND source_id = ?',
    );
    this.#renewOwner = db.prepare<[number, string]>('UPDATE jobs SET lease_expires_at = ? WHERE lease_owner = ?');
    this.#complete = db.prepare<[number]>('DELETE FROM jobs WHERE id = ?');
    this.#release = db.prepare<[number, number, string, number, number]>(
      'UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, available_at = ? WHERE id = ? AND lease_owner = ? AND attempts = ? AND source_id = ?',
    );
    this.#nextAvailable = db.prepare<[], { at: number | null }>(
      'SELECT min(max(available_at, coalesce(lease_expires_at, 0))) AS at FROM jobs',
    );
    this.#owners = db.prepare<[], { owner: string }>('SELECT DISTINCT lease_owner AS owner FROM jobs WHERE lease_owner IS NOT NULL');
    this.#releaseOwner = db.prepare<[string]>('UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?');
  }

  /**
   * Queues work on a source, with this process's private-network permission. Queueing a source
   * that is being worked on starts over: the running claim loses its lease and its result is not kept.
   */
  enqueue(kind: JobKind, sourceId: number, host: string | null, now: number): void {
    this.#enqueue.run(kind, sourceId, host, this.#privateNetwork, now, now);
  }

  /** Leases the next available job to `owner`, skipping jobs for the busy hosts; undefined when none is ready. */
  claim(owner: LeaseOwner, now: number, leaseMs: number, busyHosts: readonly string[] = []): JobRow | undefined {
    return this.#claim.get(owner.id, now + leaseMs, now, now, JSON.stringify(busyHosts));
  }

  /** Extends the lease of this claim; false when the claim is no longer current (taken over or queued anew). */
  renew(job: JobRow, owner: LeaseOwner, until: number): boolean {
    return this.#renew.run(until, job.id, owner.id, job.attempts, job.source_id).changes > 0;
  }

  /** Extends every lease `owner` still holds, in one statement. */
  renewAll(owner: LeaseOwner, until: number): void {
    this.#renewOwner.run(until, owner.id);
  }

  complete(id: number): void {
    this.#complete.run(id);
  }

  /** Gives a claimed job back, to be tried again at `availableAt`; a stale claim gives nothing back. */
  release(job: JobRow, owner: LeaseOwner, availableAt: number): void {
    this.#release.run(availableAt, job.id, owner.id, job.attempts, job.source_id);
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

  /** Frees the leases of one owner known to be gone (a writer thread of this process that crashed); how many. */
  releaseLeasesOf(owner: string): number {
    return this.#releaseOwner.run(owner).changes;
  }

  /** When the earliest job may next be claimed (epoch ms), or null when the queue is empty. */
  nextAvailableAt(): number | null {
    return this.#nextAvailable.get()?.at ?? null;
  }
}
