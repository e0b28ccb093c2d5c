import type { Crawl, CrawlStatus } from '../../core/schemas.js';
import { holderHasDied, type LeaseOwner } from '../store/jobs.js';
import type { Dialect, Sql } from '../store/sql.js';

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
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  find(id: number): Promise<CrawlRow | undefined> {
    return this.#sql.get(`SELECT ${COLUMNS} FROM crawls c JOIN gurus g ON g.id = c.guru_id WHERE c.id = ?`, [id]);
  }

  runningOf(guruId: number): Promise<CrawlRow | undefined> {
    return this.#sql.get(`SELECT ${COLUMNS} FROM crawls c JOIN gurus g ON g.id = c.guru_id WHERE c.guru_id = ? AND c.status = 'RUNNING'`, [guruId]);
  }

  running(): Promise<CrawlRow[]> {
    return this.#sql.all(`SELECT ${COLUMNS} FROM crawls c JOIN gurus g ON g.id = c.guru_id WHERE c.status = 'RUNNING'`);
  }

  /**
   * Stores a new RUNNING crawl; undefined when the guru has one running already (the unique index
   * crawls_one_running: a start by another process that committed, or is about to, since the
   * caller looked). No error: on PostgreSQL a failed statement would abort the caller's transaction.
   */
  async create(crawl: NewCrawl): Promise<CrawlRow | undefined> {
    const created = await this.#sql.get<{ id: number }>(
      `INSERT INTO crawls (guru_id, url, ignore_query_params, link_limit, status, start_time, lease_owner, lease_expires_at)
       VALUES (?, ?, ?, ?, 'RUNNING', ?, ?, ?)
       ON CONFLICT (guru_id) WHERE status = 'RUNNING' DO NOTHING RETURNING id`,
      [crawl.guruId, crawl.url, crawl.ignoreQueryParams ? 1 : 0, crawl.linkLimit, crawl.startTime, crawl.owner.id, crawl.leaseExpiresAt],
    );
    return created === undefined ? undefined : this.find(created.id);
  }

  /** Whether the crawl is still RUNNING under this owner's lease (false once stopped elsewhere or taken over). */
  async isRunningFor(id: number, owner: LeaseOwner): Promise<boolean> {
    const row = await this.#sql.get<{ status: CrawlStatus; lease_owner: string | null }>('SELECT status, lease_owner FROM crawls WHERE id = ?', [id]);
    return row?.status === 'RUNNING' && row.lease_owner === owner.id;
  }

  /**
   * Appends pages found from `position` on and extends the lease, in one transaction; nothing is
   * written and false returned when the crawl is no longer this owner's running crawl.
   */
  record(id: number, owner: LeaseOwner, position: number, urls: readonly string[], leaseExpiresAt: number): Promise<boolean> {
    return this.#sql.transaction(async (tx) => {
      const renewed = await tx.run(`UPDATE crawls SET lease_expires_at = ? WHERE id = ? AND status = 'RUNNING' AND lease_owner = ?`, [
        leaseExpiresAt,
        id,
        owner.id,
      ]);
      if (renewed.changes === 0) return false;
      if (urls.length > 0) await tx.run(appendUrls(tx.dialect), [id, position, JSON.stringify(urls)]);
      return true;
    });
  }

  /** Ends a RUNNING crawl; false when it had already ended. */
  async finish(id: number, status: FinalStatus, endTime: string, errorMessage: string | null): Promise<boolean> {
    const { changes } = await this.#sql.run(
      `UPDATE crawls SET status = ?, end_time = ?, error_message = ?, lease_owner = NULL, lease_expires_at = NULL
       WHERE id = ? AND status = 'RUNNING'`,
      [status, endTime, errorMessage, id],
    );
    return changes > 0;
  }

  async urls(id: number): Promise<string[]> {
    return (await this.#sql.all<{ url: string }>('SELECT url FROM crawl_urls WHERE crawl_id = ? ORDER BY position', [id])).map((row) => row.url);
  }

  /** The spec's Crawl object; `error_message` only when the crawl failed or was cut short. */
  async toCrawl(row: CrawlRow): Promise<Crawl> {
    return {
      id: row.id,
      url: row.url,
      status: row.status,
      guru_type: row.guru_slug,
      discovered_urls: await this.urls(row.id),
      start_time: row.start_time,
      end_time: row.end_time,
      link_limit: row.link_limit,
      ignore_query_params: row.ignore_query_params === 1,
      ...(row.error_message === null ? {} : { error_message: row.error_message }),
    };
  }
}

/**
 * One statement storing a list of found pages (a JSON array, the third parameter) at the positions
 * from the second parameter on; pages already stored at a position are kept. (SQLite needs the
 * WHERE to read ON CONFLICT after a SELECT as the upsert clause.)
 */
const appendUrls = (dialect: Dialect): string =>
  dialect === 'sqlite'
    ? `INSERT INTO crawl_urls (crawl_id, position, url) SELECT ?, ? + key, value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`
    : `INSERT INTO crawl_urls (crawl_id, position, url)
       SELECT CAST(? AS bigint), CAST(? AS bigint) + ordinality - 1, value FROM jsonb_array_elements_text(CAST(? AS jsonb)) WITH ORDINALITY AS t(value, ordinality)
       ON CONFLICT DO NOTHING`;

/**
 * A RUNNING crawl nobody is running any more: its lease ran out, or its process died where `self`
 * can tell by its PID (see holderHasDied). (A crawl leased by `self` is judged by the caller,
 * which knows what it runs.)
 */
export function isAbandoned(row: CrawlRow, self: LeaseOwner, now: number, dialect: Dialect): boolean {
  if (row.status !== 'RUNNING' || row.lease_owner === self.id) return false;
  if (row.lease_owner === null || row.lease_expires_at === null || row.lease_expires_at < now) return true;
  return holderHasDied(row.lease_owner, self, dialect);
}
