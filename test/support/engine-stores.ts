/**
 * Runs a suite of engine tests on each durable store: SQLite in the data directory, and PostgreSQL
 * (one throwaway server for the file, a database of its own for each engine: postgres-suite.ts).
 */
import { describe } from 'vitest';
import { postgresSuite, onDatabase } from './postgres-suite.js';
import { filesHolding, storedRows, storedRowsInPostgres, tablesHoldingInPostgres, type StoredTable } from './stored-rows.js';

export interface EngineDatabase {
  /** The engine's `databaseUrl`: none on SQLite. */
  readonly settings: { readonly databaseUrl?: string };
  /** Rows of a table, read apart from the engine. */
  rows(table: StoredTable | 'binges'): Promise<number>;
  /** The first row a statement (both stores' SQL, `?` parameters) returns, read apart from the engine. */
  get<Row>(statement: string, params?: readonly unknown[]): Promise<Row | undefined>;
  /** Changes rows apart from the engine (a test breaking what it stored). */
  run(statement: string, params?: readonly unknown[]): Promise<void>;
  /** Every row a statement returns, read apart from the engine. */
  all<Row>(statement: string, params?: readonly unknown[]): Promise<Row[]>;
  /**
   * Where the engine keeps bytes containing `text`: the files of its data directory, and on
   * PostgreSQL the tables with a row holding it (`table NAME`).
   */
  holding(text: string): Promise<string[]>;
  /** Drops it once its engine has closed. */
  drop(): Promise<void>;
}

export interface StoreUnderTest {
  readonly kind: 'sqlite' | 'postgres';
  /** A store for an engine whose data directory is `dataDir`. */
  database(dataDir: string): Promise<EngineDatabase>;
}

const sqlite: StoreUnderTest = {
  kind: 'sqlite',
  database: async (dataDir) => {
    const { default: Database } = await import('better-sqlite3');
    const { join } = await import('node:path');
    return {
      settings: {},
      rows: async (table) => (table === 'binges' ? ((await get<{ n: number }>('SELECT count(*) AS n FROM binges'))?.n ?? 0) : storedRows(dataDir, table)),
      get,
      all,
      run: async (statement, params = []) => {
        const db = new Database(join(dataDir, 'guru.sqlite'), { fileMustExist: true });
        try {
          db.prepare(statement).run(...params);
        } finally {
          db.close();
        }
      },
      holding: async (text) => filesHolding(dataDir, text),
      drop: async () => undefined,
    };
    function reading<T>(read: (db: InstanceType<typeof Database>) => T): T {
      const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true, fileMustExist: true });
      try {
        return read(db);
      } finally {
        db.close();
      }
    }
    async function get<Row>(statement: string, params: readonly unknown[] = []): Promise<Row | undefined> {
      return reading((db) => db.prepare(statement).get(...params) as Row | undefined);
    }
    async function all<Row>(statement: string, params: readonly unknown[] = []): Promise<Row[]> {
      return reading((db) => db.prepare(statement).all(...params) as Row[]);
    }
  },
};

/** Declares the suite `body` once per store, each in a describe of its own. */
export function onEachStore(body: (store: StoreUnderTest) => void): void {
  describe('on SQLite', () => body(sqlite));
  describe('on PostgreSQL', () => {
    const suite = postgresSuite();
    body({
      kind: 'postgres',
      database: async (dataDir) => {
        const fresh = await suite.freshDatabase();
        const get = <Row>(statement: string, params: readonly unknown[] = []) => onDatabase(fresh.url, (sql) => sql.get<Row>(statement, params));
        const all = <Row>(statement: string, params: readonly unknown[] = []) => onDatabase(fresh.url, (sql) => sql.all<Row>(statement, params));
        return {
          settings: { databaseUrl: fresh.url },
          rows: async (table) => (table === 'binges' ? ((await get<{ n: number }>('SELECT count(*) AS n FROM binges'))?.n ?? 0) : storedRowsInPostgres(fresh.url, table)),
          get,
          all,
          run: (statement, params = []) => onDatabase(fresh.url, async (sql) => void (await sql.run(statement, params))),
          holding: async (text) => [...filesHolding(dataDir, text), ...(await tablesHoldingInPostgres(fresh.url, text)).map((table) => `table ${table}`)],
          drop: fresh.drop,
        };
      },
    });
  });
}
