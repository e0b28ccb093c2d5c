import type { DataSource, DataSourceStatus, DataSourceType } from '../../core/schemas.js';
import type { Db } from './database.js';
import { nextIdOf } from './ids.js';

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

/** A deleted source's id is never given to another one (see ids.ts). */
const NEXT_ID = nextIdOf('data_sources', 'sqlite');

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
  readonly #get;
  readonly #page;
  readonly #count;
  readonly #succeed;
  readonly #fail;
  readonly #byUrl;
  readonly #insertUrl;
  readonly #insertDocument;
  readonly #storedByName;
  readonly #replaceStored;
  readonly #countType;
  readonly #succeedWithRead;
  readonly #reindex;
  readonly #delete;

  constructor(db: Db) {
    this.#get = db.prepare<[number], SourceRow>(`SELECT ${COLUMNS} FROM data_sources WHERE id = ?`);
    this.#page = db.prepare<[number, number, number], SourceRow>(
      `SELECT ${COLUMNS} FROM data_sources WHERE guru_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`,
    );
    this.#count = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM data_sources WHERE guru_id = ?');
    this.#succeed = db.prepare<[number]>(`UPDATE data_sources SET status = 'SUCCESS', error = '' WHERE id = ?`);
    this.#fail = db.prepare<[string, number]>(`UPDATE data_sources SET status = 'FAIL', error = ? WHERE id = ?`);
    this.#byUrl = db.prepare<[number, string], SourceRow>(`SELECT ${COLUMNS} FROM data_sources WHERE guru_id = ? AND url = ?`);
    this.#insertUrl = db.prepare<[number, string, string, string, string], SourceRow>(
      `INSERT INTO data_sources (id, guru_id, type, url, labels, date_created) VALUES (${NEXT_ID}, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    );
    this.#insertDocument = db.prepare<[number, string, string, string, string, number, string, string], SourceRow>(
      `INSERT INTO data_sources (id, guru_id, type, name, title, content, private, labels, date_created)
       VALUES (${NEXT_ID}, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    );
    this.#storedByName = db.prepare<[number, string, string], SourceRow>(
      `SELECT ${COLUMNS} FROM data_sources WHERE guru_id = ? AND type = ? AND name = ? ORDER BY id DESC LIMIT 1`,
    );
    this.#replaceStored = db.prepare<[string, string, number, string, number], SourceRow>(
      `UPDATE data_sources SET title = ?, content = ?, private = ?, labels = ?, status = 'NOT_PROCESSED', error = ''
       WHERE id = ? RETURNING ${COLUMNS}`,
    );
    this.#countType = db.prepare<[number, string], { n: number }>('SELECT count(*) AS n FROM data_sources WHERE guru_id = ? AND type = ?');
    this.#succeedWithRead = db.prepare<[string, string, number]>(
      `UPDATE data_sources SET title = ?, content = ?, status = 'SUCCESS', error = '' WHERE id = ?`,
    );
    this.#reindex = db.prepare<[string, number]>(
      `UPDATE data_sources SET status = 'NOT_PROCESSED', error = '', reindex_count = reindex_count + 1, last_reindex_date = ?
       WHERE id = ?`,
    );
    this.#delete = db.prepare<[number, string], { id: number }>(
      'DELETE FROM data_sources WHERE guru_id = ? AND id IN (SELECT value FROM json_each(?)) RETURNING id',
    );
  }

  /**
   * Deletes the guru's sources of these ids, with their chunks, vectors, links and jobs (ON DELETE
   * CASCADE; the full-text indexes follow through triggers). Returns the ids deleted. Call inside a
   * transaction.
   */
  delete(guruId: number, ids: readonly number[]): number[] {
    return this.#delete.all(guruId, JSON.stringify(ids)).map((row) => row.id);
  }

  get(id: number): SourceRow | undefined {
    return this.#get.get(id);
  }

  findByUrl(guruId: number, url: string): SourceRow | undefined {
    return this.#byUrl.get(guruId, url);
  }

  insertUrl(source: NewUrlSource): SourceRow {
    const row = this.#insertUrl.get(source.guruId, source.type, source.url, JSON.stringify(source.labels), source.now);
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  insertDocument(source: NewDocumentSource): SourceRow {
    const row = this.#insertDocument.get(
      source.guruId,
      source.type,
      source.name,
      source.title,
      source.content,
      source.private ? 1 : 0,
      JSON.stringify(source.labels),
      source.now,
    );
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  /** The newest text or document of this type stored under this name (a file's name or path), if any. */
  findStored(guruId: number, type: DataSourceType, name: string): SourceRow | undefined {
    return this.#storedByName.get(guruId, type, name);
  }

  /** New text for a text or document read from a file again: it goes back to NOT_PROCESSED until indexed again. */
  replaceStored(id: number, source: Pick<NewDocumentSource, 'title' | 'content' | 'private' | 'labels'>): SourceRow {
    const row = this.#replaceStored.get(source.title, source.content, source.private ? 1 : 0, JSON.stringify(source.labels), id);
    if (!row) throw new Error(`data source ${id} vanished`);
    return row;
  }

  countOfType(guruId: number, type: DataSourceType): number {
    return this.#countType.get(guruId, type)?.n ?? 0;
  }

  /** Back to NOT_PROCESSED for another pass, counting the reindex. */
  markForReindex(id: number, now: string): void {
    this.#reindex.run(now, id);
  }

  page(guruId: number, limit: number, offset: number): SourceRow[] {
    return this.#page.all(guruId, limit, offset);
  }

  count(guruId: number): number {
    return this.#count.get(guruId)?.n ?? 0;
  }

  /**
   * Marks a source indexed, keeping what was read from its URL (`read`) so that answers can quote
   * it: in one statement, as an update rewrites the whole row, its text too.
   */
  markSucceeded(id: number, read?: { readonly title: string; readonly content: string }): void {
    if (read === undefined) this.#succeed.run(id);
    else this.#succeedWithRead.run(read.title, read.content, id);
  }

  markFailed(id: number, error: string): void {
    this.#fail.run(error, id);
  }
}
