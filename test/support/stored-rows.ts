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

/** Rows of a table in the engine's PostgreSQL database at `url`. */
export async function storedRowsInPostgres(url: string, table: StoredTable): Promise<number> {
  const { onDatabase } = await import('./postgres-suite.js');
  return onDatabase(url, async (sql) => (await sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);
}

/**
 * The tables of the engine's PostgreSQL database at `url` with a row whose text holds `text`:
 * where a deleted text might linger, as `filesHolding` looks in the files of the embedded store.
 */
export async function tablesHoldingInPostgres(url: string, text: string): Promise<string[]> {
  const { onDatabase } = await import('./postgres-suite.js');
  return onDatabase(url, async (sql) => {
    const tables = await sql.all<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    const holding: string[] = [];
    for (const { name } of tables) {
      const row = await sql.get(`SELECT 1 AS found FROM "${name}" AS t WHERE strpos(t::text, ?) > 0 LIMIT 1`, [text]);
      if (row !== undefined) holding.push(name);
    }
    return holding;
  });
}
