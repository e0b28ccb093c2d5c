/**
 * Ids that are never given out twice. SQLite numbers a new row one above the highest id in its
 * table, so deleting the newest source would hand its id to the next one; the highest id deleted
 * is kept in `retired_ids` (migration 15), and new rows are numbered above both. On PostgreSQL the
 * id is the next value of the table's identity sequence, which never gives a value out twice and,
 * unlike one above the highest id, does not hand one id to two processes inserting at once.
 */
import { larger } from './dialect.js';
import type { Dialect } from './sql.js';

export type NumberedTable = 'data_sources' | 'gurus';

/** An SQL expression of the id the next row of `table` gets: for the id column of its INSERT. */
export const nextIdOf = (table: NumberedTable, dialect: Dialect): string =>
  dialect === 'postgres'
    ? `nextval(pg_get_serial_sequence('${table}', 'id'))`
    : `(SELECT ${larger(dialect, `coalesce((SELECT max(id) FROM ${table}), 0)`, `coalesce((SELECT max_id FROM retired_ids WHERE tbl = '${table}'), 0)`)} + 1)`;
