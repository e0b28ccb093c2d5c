import type { Crawl, CrawlStatus } from '../../core/schemas.js';
import type { Db } from '../store/database.js';
import type { LeaseOwner } from '../store/jobs.js';

export interface CrawlRow {
  readonly id: number;
  readonly guru_id: number;
  readonly guru_slug: string;
  readonly url: string;
  readonly ignore_query_params: 0 | 1;
  readonly link_limit: number;
  readonly status: CrawlStatus;
  readonly error_message: string | null;
  readonly start_time: string;
  readonly end_time: string | null;
  readonly lease_owner: string | null;
  readonly lease_expires_at: number | null;
}

export interface NewCrawl {
  readonly guruId: number;
  readonly url: string;
  readonly ignoreQueryParams: boolean;
  readonly linkLimit: number;
  readonly startTime: string;
  readonly owner: LeaseOwner;
  readonly leaseExpiresAt: number;
}

export type FinalStatus = Exclude<CrawlStatus, 'RUNNING'>;

const COLUMNS = `c.id, c.guru_id, g.slug AS guru_slug, c.url, c.ignore_query_params, c.link_limit, c.status,
  c.error_message, c.start_time, c.end_time, c.lease_owner, c.lease_expires_at`;

/**
 * Crawls and the pages they found. A running crawl is leased by the process running it; the
 * lease is renewed while it runs, so a crawl whose process died is recognisable (see isAbandoned).
 */
export class CrawlRepository {
  readonly #db: Db;
  readonly #find;
  readonly #runningOf;
  readonly #running;
  readonly #insert;
  readonly #status;
  readonly #urls;
  readonly #appendUrl;
  readonly #renew;
  readonly #finish;

  constructor(db: Db) {
    this.#db = db;
    this.#find = db.prepare<[number], CrawlRow>(`SELECT ${COLUMNS} FROM crawls c JOIN gurus g ON g.id = c.guru_id WHERE c.id = ?`);
    this.#runningOf = db.prepare<[number], CrawlRow>(
      `SELECT ${COLUMNS} FROM crawls c JOIN gurus g ON g.id = c.guru_id WHERE c.guru_id = ? AND c.status = 'RUNNING'`,
    );
    this.#running = db.prepare<[], CrawlRow>(`SELECT ${COLUMNS} FROM crawls c JOIN gurus g ON g.id = c.guru_id WHERE c.status = 'RUNNING'`);
    this.#insert = db.prepare<[number, string, number, number, string, string, number], { id: number }>(
      `INSERT INTO crawls (guru_id, url, ignore_query_params, link_limit, status, start_time, lease_owner, lease_expires_at)
       VALUES (?, ?, ?, ?, 'RUNNING', ?, ?, ?) RETURNING id`,
    );
    this.#status = db.prepare<[number], { status: CrawlStatus; lease_owner: string | null }>('SELECT status, lease_owner FROM crawls WHERE id = ?');
    this.#urls = db.prepare<[number], { url: string }>('SELECT url FROM crawl_urls WHERE crawl_id = ? ORDER BY position');
    this.#appendUrl = db.prepare<[number, number, string]>('INSERT OR IGNORE INTO crawl_urls (crawl_id, position, url) VALUES (?, ?, ?)');
    this.#renew = db.prepare<[number, number, string]>(
      `UPDATE crawls SET lease_expires_at = ? WHERE id = ? AND status = 'RUNNING' AND lease_owner = ?`,
    );
    this.#finish = db.prepare<[string, string, string | null, number]>(
      `UPDATE crawls SET status = ?, end_time = ?, error_message = ?, lease_owner = NULL, lease_expires_at = NULL
       WHERE id = ? AND status = 'RUNNING'`,
    );
  }

  find(id: number): CrawlRow | undefined {
    return this.#find.get(id);
  }

  runningOf(guruId: number): CrawlRow | undefined {
    return this.#runningOf.get(guruId);
  }

  running(): CrawlRow[] {
    return this.#running.all();
  }

  /** Stores a new RUNNING crawl; the caller has made sure the guru has none running (see the unique index). */
  create(crawl: NewCrawl): CrawlRow {
    const { id } = this.#insert.get(
      crawl.guruId,
      crawl.url,
      crawl.ignoreQueryParams ? 1 : 0,
      crawl.linkLimit,
      crawl.startTime,
      crawl.owner.id,
      crawl.leaseExpiresAt,
    )!;
    return this.find(id)!;
  }

  /** Whether the crawl is still RUNNING under this owner's lease (false once stopped elsewhere or taken over). */
  isRunningFor(id: number, owner: LeaseOwner): boolean {
    const row = this.#status.get(id);
    return row?.status === 'RUNNING' && row.lease_owner === owner.id;
  }

  /**
   * Appends pages found from `position` on and extends the lease, in one transaction; nothing is
   * written and false returned when the crawl is no longer this owner's running crawl.
   */
  record(id: number, owner: LeaseOwner, position: number, urls: readonly string[], leaseExpiresAt: number): boolean {
    return this.#db
      .transaction(() => {
        if (this.#renew.run(leaseExpiresAt, id, owner.id).changes === 0) return false;
        urls.forEach((url, index) => this.#appendUrl.run(id, position + index, url));
        return true;
      })
      .immediate();
  }

  /** Ends a RUNNING crawl; false when it had already ended. */
  finish(id: number, status: FinalStatus, endTime: string, errorMessage: string | null): boolean {
    return this.#finish.run(status, endTime, errorMessage, id).changes > 0;
  }

  urls(id: number): string[] {
    return this.#urls.all(id).map((row) => row.url);
  }

  /** The spec's Crawl object; `error_message` only when the crawl failed or was cut short. */
  toCrawl(row: CrawlRow): Crawl {
    return {
      id: row.id,
      url: row.url,
      status: row.status,
      guru_type: row.guru_slug,
      discovered_urls: this.urls(row.id),
      start_time: row.start_time,
      end_time: row.end_time,
      link_limit: row.link_limit,
      ignore_query_params: row.ignore_query_params === 1,
      ...(row.error_message === null ? {} : { error_message: row.error_message }),
    };
  }
}

/**
 * A RUNNING crawl nobody is running any more: its lease ran out, or its process on this machine
 * has died. (A crawl leased by `self` is judged by the caller, which knows what it runs.)
 */
export function isAbandoned(row: CrawlRow, self: LeaseOwner, now: number): boolean {
  if (row.status !== 'RUNNING' || row.lease_owner === self.id) return false;
  if (row.lease_owner === null || row.lease_expires_at === null || row.lease_expires_at < now) return true;
  const [host, pid] = row.lease_owner.split('/');
  return host === self.host && !isAlive(Number(pid));
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
