/** Reading what the engine stored, apart from the engine: rows of its tables in the database file, bytes in its files. */
import { readdirSync, readFileSync } from 'node:fs';
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

/** The files of the data directory `dataDir` whose bytes contain `text` (UTF-8): where a deleted text might linger. */
export function filesHolding(dataDir: string, text: string): string[] {
  const wanted = Buffer.from(text, 'utf8');
  return readdirSync(dataDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && readFileSync(join(dataDir, entry.name)).includes(wanted))
    .map((entry) => entry.name);
}
