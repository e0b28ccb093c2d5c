/**
 * A Keyv storage adapter over the engine's store port (`Sql`): end users' profiles and memories in
 * the table `end_user_records` of the PostgreSQL store (migration 3 of
 * src/engine/store/postgres-migrations.ts), so that every process on one database reads and
 * erases the same records. Keyv's own PostgreSQL adapter (@keyv/postgres) would open a second
 * pool to the same database and its releases conflict with keyv 6; this one shares the engine's
 * pool and its error handling.
 *
 * The table has the columns of the `keyv` table @keyv/sqlite keeps in `endusers.sqlite` (without
 * `expires`: records never expire), so `guru-mcp migrate` copies it row for row.
 *
 * Unlike Keyv's adapters, nothing here turns a failure into a miss or an event: every operation
 * rejects with the store's error, so a reader never takes "the database is down" for "nothing held".
 */
import { keyvStorageCapability, type KeyvStorageCapability, type KeyvStorageEntry } from 'keyv';
import { jsonRows, jsonValues } from '../engine/store/dialect.js';
import type { Sql } from '../engine/store/sql.js';

/** The table of the records in the PostgreSQL store. */
export const RECORDS_TABLE = 'end_user_records';

/** Keys per statement in getMany/deleteMany: one JSON list parameter, so only the row count matters. */
const BATCH_KEYS = 1_000;
/** Rows an iterator reads at a time. */
const PAGE_ROWS = 100;

interface Row {
  readonly key: string;
  readonly value: string;
}

export class KeyvSqlStore {
  /** Set by Keyv from its own namespace: one per guru and kind of record. */
  namespace: string | undefined;
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** A v6 adapter: Keyv hands it unprefixed keys and absolute expiry times. */
  get capabilities(): KeyvStorageCapability {
    return keyvStorageCapability(this);
  }

  async get(key: string): Promise<string | undefined> {
    const row = await this.#sql.get<Row>(`SELECT value FROM ${RECORDS_TABLE} WHERE namespace = ? AND key = ?`, [this.#namespace(), key]);
    return row?.value;
  }

  async getMany(keys: string[]): Promise<Array<string | undefined>> {
    const found = new Map<string, string>();
    for (let start = 0; start < keys.length; start += BATCH_KEYS) {
      const batch = keys.slice(start, start + BATCH_KEYS);
      const rows = await this.#sql.all<Row>(
        `SELECT key, value FROM ${RECORDS_TABLE} WHERE namespace = ? AND key IN ${jsonValues(this.#sql.dialect, 'text')}`,
        [this.#namespace(), JSON.stringify(batch)],
      );
      for (const row of rows) found.set(row.key, row.value);
    }
    return keys.map((key) => found.get(key));
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    return (await this.getMany(keys)).map((value) => value !== undefined);
  }

  async set(key: string, value: unknown, expires?: number): Promise<boolean> {
    await this.setMany([{ key, value, ...(expires === undefined ? {} : { expires }) }]);
    return true;
  }

  /** Upserts every entry in one statement: all are saved, or the call rejects and none is. */
  async setMany(entries: Array<KeyvStorageEntry<unknown>>): Promise<boolean[]> {
    if (entries.length === 0) return [];
    if (entries.some((entry) => entry.expires !== undefined)) throw new Error('durable records never expire: set them without a ttl');
    // One row per key: of a key given twice, the later value (as two sets in a row would leave).
    const latest = new Map(entries.map((entry) => [entry.key, valueText(entry.value)]));
    // One parameter for every row, however many (an upsert request may name many users).
    await this.#sql.run(
      `INSERT INTO ${RECORDS_TABLE} (namespace, key, value) SELECT ?, value ->> 0, value ->> 1 FROM ${jsonRows(this.#sql.dialect)}
       WHERE true ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value`,
      [this.#namespace(), JSON.stringify([...latest])],
    );
    return entries.map(() => true);
  }

  async delete(key: string): Promise<boolean> {
    const { changes } = await this.#sql.run(`DELETE FROM ${RECORDS_TABLE} WHERE namespace = ? AND key = ?`, [this.#namespace(), key]);
    return changes > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean[]> {
    const deleted = new Set<string>();
    for (let start = 0; start < keys.length; start += BATCH_KEYS) {
      const rows = await this.#sql.all<{ key: string }>(
        `DELETE FROM ${RECORDS_TABLE} WHERE namespace = ? AND key IN ${jsonValues(this.#sql.dialect, 'text')} RETURNING key`,
        [this.#namespace(), JSON.stringify(keys.slice(start, start + BATCH_KEYS))],
      );
      for (const row of rows) deleted.add(row.key);
    }
    return keys.map((key) => deleted.has(key));
  }

  /** Deletes the namespace's records (Keyv always sets one here: a guru's profiles or memories). */
  async clear(): Promise<void> {
    await this.#sql.run(`DELETE FROM ${RECORDS_TABLE} WHERE namespace = ?`, [this.#namespace()]);
  }

  /** The namespace's records in key order, a page at a time (keyset paging: rows written meanwhile are not skipped). */
  async *iterator(): AsyncGenerator<[string, string], void> {
    let after: string | undefined;
    for (;;) {
      const rows = await this.#sql.all<Row>(
        `SELECT key, value FROM ${RECORDS_TABLE} WHERE namespace = ?${after === undefined ? '' : ' AND key > ?'} ORDER BY key LIMIT ${PAGE_ROWS}`,
        after === undefined ? [this.#namespace()] : [this.#namespace(), after],
      );
      for (const row of rows) yield [row.key, row.value];
      if (rows.length < PAGE_ROWS) return;
      after = rows.at(-1)!.key;
    }
  }

  /** The engine's store is the engine's to close. */
  async disconnect(): Promise<void> {}

  /** Keyv subscribes to its adapters' errors; this one has none to emit (it rejects instead). */
  on(): this {
    return this;
  }

  #namespace(): string {
    return this.namespace ?? '';
  }
}

/** Keyv hands over the value serialized (a string); anything else is kept as JSON. */
const valueText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
