import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { jsonRows, jsonValues, larger } from './dialect.js';
import type { Dialect, Sql } from './sql.js';

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

/** A source to queue work on, and the host its job fetches from (null for work without network access). */
export interface QueuedSource {
  readonly id: number;
  readonly host: string | null;
}

export interface JobQueueSettings {
  /** Whether this process may reach loopback and private addresses (GURU_ALLOW_PRIVATE_NETWORK): recorded with the jobs it queues. */
  readonly privateNetwork?: boolean;
}

/**
 * Who holds a lease: `host/pid/instance`, and `/boot` where the machine's boot is known, so that
 * leases of processes that died can be told apart.
 */
export interface LeaseOwner {
  readonly id: string;
  /** Where `pid` means this process: the host name, with the PID namespace where there is one (containers). */
  readonly host: string;
  readonly pid: number;
  /**
   * This boot of this machine (Linux's boot id), where both it and the PID namespace are known:
   * with `host`, it names a PID space no other machine or container shares.
   */
  readonly boot?: string;
}

/**
 * The host name and, on Linux, the PID namespace (`myhost:pid:[4026531836]`): containers that
 * share a data directory and a host name number their processes apart, and one must not judge
 * another's process dead by a PID of its own. `namespaced` when the namespace was read.
 */
function processSpace(): { host: string; namespaced: boolean } {
  try {
    return { host: `${hostname()}:${readlinkSync('/proc/self/ns/pid')}`, namespaced: true };
  } catch {
    return { host: hostname(), namespaced: false };
  }
}

/** Linux's id of this boot of the machine (random at each boot), or undefined where it cannot be read. */
function bootId(): string | undefined {
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return /^[\w-]{1,64}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

export function leaseOwner(instance: string): LeaseOwner {
  const { host, namespaced } = processSpace();
  const boot = namespaced ? bootId() : undefined;
  const id = `${host}/${process.pid}/${instance}`;
  return boot === undefined ? { id, host, pid: process.pid } : { id: `${id}/${boot}`, host, pid: process.pid, boot };
}

/**
 * Whether the process holding a lease as `owner` has died, as far as `self` can tell from here:
 * only a process of its own PID space can be judged by its PID. On SQLite every process runs on
 * this machine (the file's locks are this kernel's), so the host name and PID namespace say which
 * processes share this one's PIDs. On PostgreSQL the processes may run on several machines whose
 * host name and namespace are alike (`myhost:pid:[4026531836]` on every machine in its initial
 * namespace), so the boot id must match too; where it cannot be read, no PID is judged and a lease
 * ends only when it runs out.
 */
export function holderHasDied(owner: string, self: LeaseOwner, dialect: Dialect): boolean {
  if (owner === self.id) return false;
  const [host, pid, , boot] = owner.split('/');
  if (host !== self.host) return false;
  if (dialect === 'postgres' && (self.boot === undefined || boot !== self.boot)) return false;
  return !isAlive(Number(pid));
}

function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
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
 *
 * Times are epoch ms of the store's clock (store/clock.ts): on PostgreSQL the database's, so that
 * processes on machines whose clocks disagree judge each other's leases alike.
 */
export class JobRepository {
  readonly #sql: Sql;
  readonly #privateNetwork: 0 | 1;

  constructor(sql: Sql, settings: JobQueueSettings = {}) {
    this.#sql = sql;
    this.#privateNetwork = settings.privateNetwork === true ? 1 : 0;
  }

  /**
   * Queues work on these sources (in one statement), with this process's private-network
   * permission. Queueing a source that is being worked on starts over: the running claim loses its
   * lease and its result is not kept.
   */
  async enqueue(kind: JobKind, sources: readonly QueuedSource[], now: number): Promise<void> {
    if (sources.length === 0) return;
    // One row per source: an upsert may not change a row twice in one statement (PostgreSQL).
    const rows = [...new Map(sources.map((source) => [source.id, source.host])).entries()];
    // WHERE true: SQLite would read the ON of ON CONFLICT as a join's after a bare FROM.
    await this.#sql.run(
      `INSERT INTO jobs (kind, source_id, host, private_network, available_at, created_at)
       SELECT ?, CAST(value ->> 0 AS BIGINT), value ->> 1, ?, ?, ? FROM ${jsonRows(this.#sql.dialect)} WHERE true
       ON CONFLICT (kind, source_id) DO UPDATE SET host = excluded.host, private_network = excluded.private_network,
         available_at = excluded.available_at, attempts = 0, lease_owner = NULL, lease_expires_at = NULL`,
      [kind, this.#privateNetwork, now, now, JSON.stringify(rows)],
    );
  }

  /** Leases the next available job to `owner`, skipping jobs for the busy hosts; undefined when none is ready. */
  claim(owner: LeaseOwner, now: number, leaseMs: number, busyHosts: readonly string[] = []): Promise<JobRow | undefined> {
    // On PostgreSQL, processes claiming at once take different jobs (SKIP LOCKED) instead of
    // waiting for each other's row lock and then all but one finding the job taken; SQLite has one writer.
    const locked = this.#sql.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    return this.#sql.get(
      `UPDATE jobs SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1
       WHERE id = (
         SELECT id FROM jobs
         WHERE available_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at < ?)
           AND (host IS NULL OR host NOT IN ${jsonValues(this.#sql.dialect, 'text')})
         ORDER BY available_at, id LIMIT 1${locked})
       RETURNING id, kind, source_id, attempts, host, private_network`,
      [owner.id, now + leaseMs, now, now, JSON.stringify(busyHosts)],
    );
  }

  /** Extends the lease of this claim; false when the claim is no longer current (taken over or queued anew). */
  async renew(job: JobRow, owner: LeaseOwner, until: number): Promise<boolean> {
    // The source too: a job deleted with its source may see its id given to the next job queued,
    // which this process may then claim with the same attempt count.
    const renewed = await this.#sql.run('UPDATE jobs SET lease_expires_at = ? WHERE id = ? AND lease_owner = ? AND attempts = ? AND source_id = ?', [
      until,
      job.id,
      owner.id,
      job.attempts,
      job.source_id,
    ]);
    return renewed.changes > 0;
  }

  /**
   * Extends to `until` every lease `owner` still holds that ends before `due` (every one of them
   * unless given), in one statement.
   */
  async renewAll(owner: LeaseOwner, until: number, due = until): Promise<void> {
    await this.#sql.run('UPDATE jobs SET lease_expires_at = ? WHERE lease_owner = ? AND lease_expires_at < ?', [until, owner.id, due]);
  }

  async complete(id: number): Promise<void> {
    await this.#sql.run('DELETE FROM jobs WHERE id = ?', [id]);
  }

  /** Gives a claimed job back, to be tried again at `availableAt`; a stale claim gives nothing back. */
  async release(job: JobRow, owner: LeaseOwner, availableAt: number): Promise<void> {
    await this.#sql.run(
      'UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, available_at = ? WHERE id = ? AND lease_owner = ? AND attempts = ? AND source_id = ?',
      [availableAt, job.id, owner.id, job.attempts, job.source_id],
    );
  }

  /**
   * Frees the leases of processes of this machine (and PID namespace) that are no longer running;
   * see holderHasDied for who can be judged, on PostgreSQL the boot id too.
   */
  async releaseDeadLeases(self: LeaseOwner): Promise<number> {
    if (this.#sql.dialect === 'postgres' && self.boot === undefined) return 0;
    const owners = await this.#sql.all<{ owner: string }>('SELECT DISTINCT lease_owner AS owner FROM jobs WHERE lease_owner IS NOT NULL');
    const dead = owners.map(({ owner }) => owner).filter((owner) => holderHasDied(owner, self, this.#sql.dialect));
    if (dead.length === 0) return 0;
    const released = await this.#sql.run(
      `UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner IN ${jsonValues(this.#sql.dialect, 'text')}`,
      [JSON.stringify(dead)],
    );
    return released.changes;
  }

  /** Frees the leases of one owner known to be gone (a writer thread of this process that crashed); how many. */
  async releaseLeasesOf(owner: string): Promise<number> {
    return (await this.#sql.run('UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?', [owner])).changes;
  }

  /** When the earliest job may next be claimed (epoch ms), or null when the queue is empty. */
  async nextAvailableAt(): Promise<number | null> {
    const row = await this.#sql.get<{ at: number | null }>(
      `SELECT min(${larger(this.#sql.dialect, 'available_at', 'coalesce(lease_expires_at, 0)')}) AS at FROM jobs`,
    );
    return row?.at ?? null;
  }
}
