/**
 * Moving up: copies an embedded store (the data directory's SQLite file) into an empty PostgreSQL
 * store, every table the two share, row for row with the same ids, in one PostgreSQL transaction:
 * a copy that fails half-way leaves PostgreSQL as empty as it was, and the SQLite file is only
 * read. API keys are copied as their hashes, so the keys in use keep working. Afterwards each
 * identity sequence continues above the highest id the embedded store ever gave out, and every
 * table's count is compared with its source.
 *
 * Derived tables (full-text postings and statistics) are not copied: `rebuild` fills them from the
 * copied rows inside the same transaction. End users' profiles and memories, which the embedded
 * engine keeps in another file (endusers.sqlite), go to `end_user_records` in that transaction too.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from '../../log.js';
import { RECORDS_TABLE } from '../../state/keyv-sql.js';
import { RECORDS_FILE } from '../../state/keyv.js';
import { PostgresFullText } from '../search/postgres/postgres-full-text.js';
import { DATABASE_FILE, isBusy, openDatabase, type Db } from './database.js';
import { openStore } from './open-store.js';
import type { Sql } from './sql.js';

export interface CopyProgress {
  /** The table being copied. */
  readonly table: string;
  /** Rows copied so far, and rows to copy, of every table. */
  readonly copied: number;
  readonly total: number;
}

export interface CopyOptions {
  readonly onProgress?: (progress: CopyProgress) => void;
  readonly signal?: AbortSignal;
  /** Fills what PostgreSQL derives from the copied rows (its full-text tables), in the copy's transaction. */
  readonly rebuild?: (tx: Sql) => Promise<void>;
  /**
   * The end users' record store of the data directory (endusers.sqlite), whose Keyv rows (profiles
   * and memories) go to `end_user_records` in the same transaction, counted and checked alike.
   */
  readonly records?: Db;
}

export interface CopiedTable {
  readonly table: string;
  readonly rows: number;
}

/** Most parameters PostgreSQL takes in one statement is 65,535; a batch stays well below. */
const MAX_PARAMS = 30_000;
const MAX_BATCH_ROWS = 500;

/** Tables of the PostgreSQL schema that are not data: its migrations' ledger. */
const NOT_COPIED = new Set(['schema_migrations']);

export class TargetNotEmptyError extends Error {
  constructor(gurus: number) {
    super(`The PostgreSQL database already holds ${gurus} guru${gurus === 1 ? '' : 's'}: migrate copies into an empty database only.`);
    this.name = 'TargetNotEmptyError';
  }
}

export class CountMismatchError extends Error {
  constructor(table: string, source: number, copied: number) {
    super(`After the copy, ${table} holds ${copied} rows in PostgreSQL against ${source} in SQLite; nothing was kept.`);
    this.name = 'CountMismatchError';
  }
}

/** Copies `from` into `to` (migrated, empty); returns each table with its row count. */
export async function copyToPostgres(from: Db, to: Sql, options: CopyOptions = {}): Promise<CopiedTable[]> {
  const held = await to.get<{ n: number }>('SELECT count(*) AS n FROM gurus');
  if ((held?.n ?? 0) > 0) throw new TargetNotEmptyError(held!.n);
  const tables = await sharedTables(from, to);
  const counts = tables.map(({ table }) => (from.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
  const records = options.records === undefined ? 0 : recordCount(options.records);
  const progress = { copied: 0, total: counts.reduce((sum, n) => sum + n, 0) + records };
  return to.transaction(async (tx) => {
    const copied: CopiedTable[] = [];
    /** Copies one table with `copy`, counting what it copied against `expected` and what `table` then holds. */
    const copyCounted = async (table: string, expected: number, copy: (onBatch: (batch: number) => void) => Promise<number>): Promise<void> => {
      options.signal?.throwIfAborted();
      const rows = await copy((batch) => {
        progress.copied += batch;
        options.onProgress?.({ table, ...progress });
      });
      const after = await tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
      if (rows !== expected || after?.n !== rows) throw new CountMismatchError(table, expected, after?.n ?? 0);
      copied.push({ table, rows });
    };
    for (const [index, { table, columns }] of tables.entries()) {
      await copyCounted(table, counts[index]!, (onBatch) => copyTable(from, tx, table, columns, onBatch, options.signal));
    }
    const recordsDb = options.records;
    if (recordsDb !== undefined) {
      // As they are: Keyv's JSON, in the namespace and under the key Keyv gave them.
      await copyCounted(RECORDS_TABLE, records, async (onBatch) =>
        records === 0 ? 0 : copyTable(recordsDb, tx, KEYV_TABLE, ['namespace', 'key', 'value'], onBatch, options.signal, RECORDS_TABLE),
      );
    }
    await continueSequences(from, tx, tables);
    await options.rebuild?.(tx);
    return copied;
  });
}

interface Table {
  readonly table: string;
  readonly columns: readonly string[];
  readonly hasIdentity: boolean;
}

/**
 * The tables both stores have, with the columns both have, parents before children (foreign keys),
 * so that every row's references exist when it goes in.
 */
async function sharedTables(from: Db, to: Sql): Promise<Table[]> {
  const columns = await to.all<{ table_name: string; column_name: string; is_identity: string }>(
    `SELECT table_name, column_name, is_identity FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const references = await to.all<{ child: string; parent: string }>(
    `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent
     FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`,
  );
  const sqliteColumns = new Set(
    (from.prepare(`SELECT m.name || '.' || c.name AS qualified FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table'`).all() as {
      qualified: string;
    }[]).map(({ qualified }) => qualified),
  );
  const tables = new Map<string, { columns: string[]; hasIdentity: boolean }>();
  for (const { table_name: table, column_name: column, is_identity: identity } of columns) {
    if (NOT_COPIED.has(table) || !sqliteColumns.has(`${table}.${column}`)) continue;
    const entry = tables.get(table) ?? { columns: [], hasIdentity: false };
    entry.columns.push(column);
    entry.hasIdentity ||= identity === 'YES';
    tables.set(table, entry);
  }
  const ordered: Table[] = [];
  const visiting = new Set<string>();
  const visit = (table: string): void => {
    const entry = tables.get(table);
    if (!entry || visiting.has(table) || ordered.some((done) => done.table === table)) return;
    visiting.add(table);
    for (const { parent } of references.filter(({ child }) => child === table)) visit(parent);
    ordered.push({ table, ...entry });
  };
  for (const table of [...tables.keys()].sort()) visit(table);
  return ordered;
}

/** Copies `columns` of `table` in `from` into the table of that name in `tx` (or into `target`). */
async function copyTable(
  from: Db,
  tx: Sql,
  table: string,
  columns: readonly string[],
  onBatch: (rows: number) => void,
  signal: AbortSignal | undefined,
  target = table,
): Promise<number> {
  const list = columns.join(', ');
  const batchRows = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(MAX_PARAMS / columns.length)));
  const row = `(${columns.map(() => '?').join(', ')})`;
  let copied = 0;
  let batch: unknown[][] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    await tx.run(`INSERT INTO ${target} (${list}) VALUES ${batch.map(() => row).join(', ')}`, batch.flat());
    copied += batch.length;
    onBatch(batch.length);
    batch = [];
  };
  // rowid order: the order SQLite wrote them in, which later sorts (ties by insertion) rely on.
  const order = hasRowid(from, table) ? ' ORDER BY rowid' : '';
  for (const values of from.prepare(`SELECT ${list} FROM ${table}${order}`).raw().iterate() as Iterable<unknown[]>) {
    batch.push(values);
    if (batch.length >= batchRows) {
      signal?.throwIfAborted();
      await flush();
    }
  }
  await flush();
  return copied;
}

/** @keyv/sqlite's table in endusers.sqlite: key, value, namespace, expires (never set: records do not expire). */
const KEYV_TABLE = 'keyv';

/** The rows of the record store to copy: none when Keyv never made its table. */
function recordCount(records: Db): number {
  if (records.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(KEYV_TABLE) === undefined) return 0;
  return (records.prepare(`SELECT count(*) AS n FROM ${KEYV_TABLE}`).get() as { n: number }).n;
}

function hasRowid(from: Db, table: string): boolean {
  const sql = (from.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) as { sql: string } | undefined)?.sql;
  return sql !== undefined && !/WITHOUT\s+ROWID/i.test(sql);
}

/**
 * Each identity sequence goes on above the highest id used: the copied rows', and for gurus and
 * sources also the highest one ever deleted (SQLite's `retired_ids`), so no id is given out twice.
 */
async function continueSequences(from: Db, tx: Sql, tables: readonly Table[]): Promise<void> {
  const retired = new Map(
    (from.prepare(`SELECT tbl, max_id FROM retired_ids`).all() as { tbl: string; max_id: number }[]).map(({ tbl, max_id }) => [tbl, max_id]),
  );
  for (const { table, hasIdentity } of tables) {
    if (!hasIdentity) continue;
    const highest = await tx.get<{ n: number | null }>(`SELECT max(id) AS n FROM ${table}`);
    const next = Math.max(highest?.n ?? 0, retired.get(table) ?? 0);
    // setval(…, n, true): the next value is n + 1; a table that never had a row starts at 1.
    if (next > 0) await tx.get(`SELECT setval(pg_get_serial_sequence(?, 'id'), ?, true)`, [table, next]);
  }
}

export interface DataDirMigration {
  readonly dataDir: string;
  /** The PostgreSQL database to copy into (GURU_DATABASE_URL). */
  readonly databaseUrl: string;
  readonly logger?: Logger;
}

/** The embedded store of `dataDir` copied into the PostgreSQL database at `databaseUrl` (migrated first; it must hold no guru). */
export async function migrateDataDir(settings: DataDirMigration, options: CopyOptions = {}): Promise<CopiedTable[]> {
  const file = join(settings.dataDir, DATABASE_FILE);
  if (!existsSync(file)) throw new NothingToCopyError(file);
  // Opened as the engine opens it: an older file is brought to the schema PostgreSQL's copy has.
  const from = openDatabase(settings.dataDir);
  try {
    holdAlone(from, file);
  } catch (error) {
    from.close();
    throw error;
  }
  // End users' profiles and memories, if any were ever kept.
  const recordsFile = join(settings.dataDir, RECORDS_FILE);
  const records = existsSync(recordsFile) ? new Database(recordsFile, { fileMustExist: true }) : undefined;
  try {
    const to = await openStore({ dataDir: settings.dataDir, databaseUrl: settings.databaseUrl, ...(settings.logger ? { logger: settings.logger } : {}) });
    try {
      // The full-text postings are PostgreSQL's own: built from the copied chunks and links, then
      // settled (vacuumed), so that the first searches read them from the index alone.
      const copied = await copyToPostgres(from, to, { ...options, ...(records ? { records } : {}), rebuild: (tx) => new PostgresFullText(tx).indexAll() });
      await new PostgresFullText(to).settle();
      return copied;
    } finally {
      await to.close();
    }
  } finally {
    records?.close();
    from.close();
  }
}

/**
 * Takes the database file for this connection alone until it closes (SQLite's exclusive locking
 * mode, without waiting): refused while another connection has it open, since that process
 * (`serve`, an IDE's stdio server, a CLI command) may write to it after the copy and its writes
 * would be lost; and while the copy runs, no process can open it to write.
 */
function holdAlone(db: Db, file: string): void {
  db.pragma('busy_timeout = 0');
  db.pragma('locking_mode = EXCLUSIVE');
  try {
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    if (isBusy(error)) throw new DataDirInUseError(file);
    throw error;
  }
}

export class DataDirInUseError extends Error {
  constructor(file: string) {
    super(
      `Another process has ${file} open (guru-mcp serve, an IDE's MCP server, or a command): stop every guru-mcp process that uses this data directory first, or what it writes after the copy would not reach PostgreSQL.`,
    );
    this.name = 'DataDirInUseError';
  }
}

export class NothingToCopyError extends Error {
  constructor(file: string) {
    super(`There is no embedded database at ${file}: nothing to copy. Name the data directory with --data-dir (or GURU_DATA_DIR).`);
    this.name = 'NothingToCopyError';
  }
}
