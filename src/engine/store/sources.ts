import type { DataSource, DataSourceStatus, DataSourceType } from '../../core/schemas.js';
import { jsonValues } from './dialect.js';
import { nextIdOf } from './ids.js';
import type { Sql } from './sql.js';

export interface SourceRow {
  readonly id: number;
  readonly guru_id: number;
  readonly type: DataSourceType;
  readonly url: string | null;
  readonly name: string | null;
  readonly title: string | null;
  readonly content: string | null;
  readonly labels: string;
  readonly status: DataSourceStatus;
  readonly error: string;
  readonly private: 0 | 1;
  readonly date_created: string;
  readonly last_reindex_date: string | null;
  readonly reindex_count: number;
}

/** A source read from a URL: a web page, a video, a ticket, a wiki page. */
export interface NewUrlSource {
  readonly guruId: number;
  readonly type: DataSourceType;
  readonly url: string;
  readonly labels: readonly string[];
  readonly now: string;
}

/** An uploaded document, kept as the Markdown extracted from it. */
export interface NewDocumentSource {
  readonly guruId: number;
  readonly type: DataSourceType;
  readonly name: string;
  readonly title: string;
  readonly content: string;
  readonly private: boolean;
  readonly labels: readonly string[];
  readonly now: string;
}

const COLUMNS = `id, guru_id, type, url, name, title, content, labels, status, error, private,
  date_created, last_reindex_date, reindex_count`;

/** The spec's listing shape of a stored source. */
export function toListedSource(row: SourceRow): DataSource {
  return {
    id: row.id,
    type: row.type,
    ...(row.url === null ? {} : { url: row.url }),
    title: row.title,
    status: row.status,
    error: row.error,
    date_created: row.date_created,
    private: row.private === 1,
    last_reindex_date: row.last_reindex_date ?? row.date_created,
    reindex_count: row.reindex_count,
    labels: parseLabels(row.labels),
  };
}

export const parseLabels = (json: string): string[] => JSON.parse(json) as string[];

export class SourceRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** A deleted source's id is never given to another one (see ids.ts). */
  get #nextId(): string {
    return nextIdOf('data_sources', this.#sql.dialect);
  }

  /**
   * Deletes the guru's sources of these ids, with their chunks, vectors, links and jobs (ON DELETE
   * CASCADE; the full-text indexes follow through triggers). Returns the ids deleted. Call inside a
   * transaction.
   */
  async delete(guruId: number, ids: readonly number[]): Promise<number[]> {
    const rows = await this.#sql.all<{ id: number }>(
      `DELETE FROM data_sources WHERE guru_id = ? AND id IN ${jsonValues(this.#sql.dialect, 'integer')} RETURNING id`,
      [guruId, JSON.stringify(ids)],
    );
    return rows.map((row) => row.id);
  }

  get(id: number): Promise<SourceRow | undefined> {
    return this.#sql.get(`SELECT ${COLUMNS} FROM data_sources WHERE id = ?`, [id]);
  }

  /** The sources of these ids that exist, in one read. */
  async getMany(ids: readonly number[]): Promise<Map<number, SourceRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#sql.all<SourceRow>(`SELECT ${COLUMNS} FROM data_sources WHERE id IN ${jsonValues(this.#sql.dialect, 'integer')}`, [
      JSON.stringify(ids),
    ]);
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** The guru's sources of these URLs, by URL, in one read. */
  async findByUrls(guruId: number, urls: readonly string[]): Promise<Map<string, SourceRow>> {
    if (urls.length === 0) return new Map();
    const rows = await this.#sql.all<SourceRow>(
      `SELECT ${COLUMNS} FROM data_sources WHERE guru_id = ? AND url IN ${jsonValues(this.#sql.dialect, 'text')}`,
      [guruId, JSON.stringify(urls)],
    );
    return new Map(rows.map((row) => [row.url as string, row]));
  }

  async insertUrl(source: NewUrlSource): Promise<SourceRow> {
    const row = await this.#sql.get<SourceRow>(
      `INSERT INTO data_sources (id, guru_id, type, url, labels, date_created) VALUES (${this.#nextId}, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      [source.guruId, source.type, source.url, JSON.stringify(source.labels), source.now],
    );
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  async insertDocument(source: NewDocumentSource): Promise<SourceRow> {
    const row = await this.#sql.get<SourceRow>(
      `INSERT INTO data_sources (id, guru_id, type, name, title, content, private, labels, date_created)
       VALUES (${this.#nextId}, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      [source.guruId, source.type, source.name, source.title, source.content, source.private ? 1 : 0, JSON.stringify(source.labels), source.now],
    );
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  /** The newest text or document of this type stored under this name (a file's name or path), if any. */
  findStored(guruId: number, type: DataSourceType, name: string): Promise<SourceRow | undefined> {
    // A text's name is unique (the partial index data_sources_guru_text_name), and looked up by it
    // with the type written out and no ORDER BY … LIMIT: PostgreSQL plans a prepared statement once
    // for every value (plan_cache_mode=force_generic_plan), and that plan read every source of the
    // guru in id order looking for the name, 1-3 ms a text at NFCorpus's 3,633.
    if (type === 'TEXT') return this.#sql.get(`SELECT ${COLUMNS} FROM data_sources WHERE guru_id = ? AND type = 'TEXT' AND name = ?`, [guruId, name]);
    return this.#sql.get(`SELECT ${COLUMNS} FROM data_sources WHERE guru_id = ? AND type = ? AND name = ? ORDER BY id DESC LIMIT 1`, [
      guruId,
      type,
      name,
    ]);
  }

  /** New text for a text or document read from a file again: it goes back to NOT_PROCESSED until indexed again. */
  async replaceStored(id: number, source: Pick<NewDocumentSource, 'title' | 'content' | 'private' | 'labels'>): Promise<SourceRow> {
    const row = await this.#sql.get<SourceRow>(
      `UPDATE data_sources SET title = ?, content = ?, private = ?, labels = ?, status = 'NOT_PROCESSED', error = ''
       WHERE id = ? RETURNING ${COLUMNS}`,
      [source.title, source.content, source.private ? 1 : 0, JSON.stringify(source.labels), id],
    );
    if (!row) throw new Error(`data source ${id} vanished`);
    return row;
  }

  async countOfType(guruId: number, type: DataSourceType): Promise<number> {
    return (await this.#sql.get<{ n: number }>('SELECT count(*) AS n FROM data_sources WHERE guru_id = ? AND type = ?', [guruId, type]))?.n ?? 0;
  }

  /** Back to NOT_PROCESSED for another pass, counting the reindex: these sources, in one statement. */
  async markForReindex(ids: readonly number[], now: string): Promise<void> {
    await this.#sql.run(
      `UPDATE data_sources SET status = 'NOT_PROCESSED', error = '', reindex_count = reindex_count + 1, last_reindex_date = ?
       WHERE id IN ${jsonValues(this.#sql.dialect, 'integer')}`,
      [now, JSON.stringify(ids)],
    );
  }

  page(guruId: number, limit: number, offset: number): Promise<SourceRow[]> {
    return this.#sql.all(`SELECT ${COLUMNS} FROM data_sources WHERE guru_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, [guruId, limit, offset]);
  }

  async count(guruId: number): Promise<number> {
    return (await this.#sql.get<{ n: number }>('SELECT count(*) AS n FROM data_sources WHERE guru_id = ?', [guruId]))?.n ?? 0;
  }

  /**
   * Marks a source indexed, keeping what was read from its URL (`read`) so that answers can quote
   * it: in one statement, as an update rewrites the whole row, its text too.
   */
  async markSucceeded(id: number, read?: { readonly title: string; readonly content: string }): Promise<void> {
    if (read === undefined) await this.#sql.run(`UPDATE data_sources SET status = 'SUCCESS', error = '' WHERE id = ?`, [id]);
    else await this.#sql.run(`UPDATE data_sources SET title = ?, content = ?, status = 'SUCCESS', error = '' WHERE id = ?`, [read.title, read.content, id]);
  }

  async markFailed(id: number, error: string): Promise<void> {
    await this.#sql.run(`UPDATE data_sources SET status = 'FAIL', error = ? WHERE id = ?`, [error, id]);
  }
}
