/** Reading what the engine stored, apart from the engine: rows of its tables in the database file. */
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type StoredTable = 'searches' | 'crawls' | 'questions' | 'data_sources' | 'question_attachments';

/** Rows of a table in the engine's database under `dataDir`. */
export function storedRows(dataDir: string, table: StoredTable): number {
  const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
