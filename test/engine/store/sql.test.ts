/**
 * The store port, the same statements on both implementations: SQLite on disk and a throwaway
 * PostgreSQL 15 on loopback.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BinaryCopy, postgresOf } from '../../../src/engine/store/postgres-copy.js';
import { numberPlaceholders, PostgresSql } from '../../../src/engine/store/postgres-sql.js';
import { jsonRows } from '../../../src/engine/store/dialect.js';
import type { Sql, Store } from '../../../src/engine/store/sql.js';
import { SqliteSql, sqliteOf } from '../../../src/engine/store/sqlite-sql.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

describe('numberPlaceholders', () => {
  it('numbers ? and @name, leaving literals, quoted names, comments and dollar quotes alone', () => {
    expect(numberPlaceholders("SELECT ? , 'a?b', \"c?\" -- d?\n, ? /* @e ? */ , $$ ? $$, $t$ @x $t$").text).toBe(
      "SELECT $1 , 'a?b', \"c?\" -- d?\n, $2 /* @e ? */ , $$ ? $$, $t$ @x $t$",
    );
    expect(numberPlaceholders('SELECT @a, @b, @a, x @@ y')).toEqual({ text: 'SELECT $1, $2, $1, x @@ y', names: ['a', 'b'] });
    expect(() => numberPlaceholders('SELECT ?, @a')).toThrow(/either/);
  });
});

const SCHEMA = `CREATE TABLE notes (id integer PRIMARY KEY, guru_id integer NOT NULL, body text NOT NULL, data bytea, score real);
  CREATE UNIQUE INDEX notes_body ON notes (guru_id, body)`;

let postgres: TestPostgres;
const dirs: string[] = [];
beforeAll(async () => {
  postgres = await startPostgres();
}, 180_000);
afterAll(async () => {
  await postgres?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const stores: Record<string, () => Promise<Store>> = {
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-sql-'));
    dirs.push(dir);
    const store = new SqliteSql(new Database(join(dir, 'guru.sqlite')));
    await store.exec(SCHEMA.replace('bytea', 'blob'));
    return store;
  },
  postgres: async () => {
    const store = PostgresSql.connect({ url: postgres.url, poolSize: 4 });
    await store.exec(`DROP TABLE IF EXISTS notes; ${SCHEMA}`);
    return store;
  },
};

/** Another connection holding an open write transaction on the store, until released. */
async function anotherWriter(sql: Store): Promise<{ release: () => Promise<void> }> {
  const file = sqliteOf(sql)?.name;
  if (file !== undefined) {
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE; INSERT INTO notes (id, guru_id, body) VALUES (100, 8, 'other')");
    return {
      release: async () => {
        other.exec('COMMIT');
        other.close();
      },
    };
  }
  const other = PostgresSql.connect({ url: postgres.url, poolSize: 1 });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let began!: () => void;
  const begun = new Promise<void>((resolve) => (began = resolve));
  const transaction = other.transaction(async (tx) => {
    await tx.run("INSERT INTO notes (id, guru_id, body) VALUES (100, 8, 'other')");
    began();
    await released;
  });
  await begun;
  return {
    release: async () => {
      release();
      await transaction;
      await other.close();
    },
  };
}

describe.each(Object.keys(stores))('the %s store', (kind) => {
  let sql: Store;
  beforeEach(async () => {
    sql = await stores[kind]!();
    return () => sql.close();
  });

  const insert = (on: Sql, id: number, body: string) => on.run('INSERT INTO notes (id, guru_id, body) VALUES (?, ?, ?)', [id, 7, body]);

  it('reads rows with numbers as numbers, by position and by name', async () => {
    await insert(sql, 1, 'one');
    await insert(sql, 2, 'two');
    await sql.run('UPDATE notes SET data = ?, score = ? WHERE id = 2', [Buffer.from([1, 2, 3]), 0.5]);
    expect(await sql.get('SELECT count(*) AS n, sum(id) AS total FROM notes WHERE guru_id = ?', [7])).toEqual({ n: 2, total: 3 });
    expect(await sql.all('SELECT id, body FROM notes WHERE guru_id = @guru AND id >= @from ORDER BY id', { guru: 7, from: 1 })).toEqual([
      { id: 1, body: 'one' },
      { id: 2, body: 'two' },
    ]);
    const row = await sql.get<{ data: Buffer; score: number }>('SELECT data, score FROM notes WHERE id = ?', [2]);
    expect([...row!.data]).toEqual([1, 2, 3]);
    expect(row!.score).toBe(0.5);
    expect(await sql.get('SELECT id FROM notes WHERE id = ?', [99])).toBeUndefined();
    expect(await sql.run('DELETE FROM notes WHERE guru_id = ?', [7])).toEqual({ changes: 2 });
  });

  it('RETURNING and ON CONFLICT read the same on both', async () => {
    expect(await sql.get('INSERT INTO notes (id, guru_id, body) VALUES (?, ?, ?) RETURNING id, body', [5, 7, 'x'])).toEqual({ id: 5, body: 'x' });
    const upsert = 'INSERT INTO notes (id, guru_id, body) VALUES (?, ?, ?) ON CONFLICT (guru_id, body) DO NOTHING';
    expect(await sql.run(upsert, [6, 7, 'x'])).toEqual({ changes: 0 });
  });

  it('commits a transaction that resolves and keeps nothing of one that throws', async () => {
    await sql.transaction(async (tx) => {
      await insert(tx, 1, 'kept');
      await tx.transaction((inner) => insert(inner, 2, 'joined'));
    });
    await expect(
      sql.transaction(async (tx) => {
        await insert(tx, 3, 'lost');
        await insert(tx, 4, 'kept'); // the unique (guru_id, body) fails it
      }),
    ).rejects.toThrow();
    expect(await sql.all('SELECT id FROM notes ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('runIfFree writes at once unless another writer holds the store (SQLite: its write lock; PostgreSQL: never)', async () => {
    const statement = 'INSERT INTO notes (id, guru_id, body) VALUES (?, 7, ?)';
    expect(await sql.runIfFree(statement, [1, 'free'])).toEqual({ changes: 1 });
    const held = await anotherWriter(sql);
    try {
      expect(await sql.runIfFree(statement, [2, 'while held'])).toEqual(kind === 'sqlite' ? undefined : { changes: 1 });
    } finally {
      await held.release();
    }
    // Inside a transaction, a write that may wait is not the transaction's to join (SQLite).
    expect(await sql.transaction((tx) => tx.runIfFree(statement, [3, 'inside']))).toEqual(kind === 'sqlite' ? undefined : { changes: 1 });
    expect(await sql.runIfFree(statement, [4, 'after'])).toEqual({ changes: 1 });
    const ids = (await sql.all<{ id: number }>('SELECT id FROM notes WHERE guru_id = 7 ORDER BY id')).map((row) => row.id);
    expect(ids).toEqual(kind === 'sqlite' ? [1, 4] : [1, 2, 3, 4]);
  });

  it('inserts and upserts a JSON list of rows in one statement (jsonRows)', async () => {
    const rows = [
      [1, 'one "quoted" ünïcode › body'],
      [2, 'two\nlines'],
    ];
    const upsert = `INSERT INTO notes (id, guru_id, body) SELECT CAST(value ->> 0 AS BIGINT), ?, value ->> 1 FROM ${jsonRows(sql.dialect)} WHERE true
      ON CONFLICT (id) DO UPDATE SET body = excluded.body`;
    expect(await sql.run(upsert, [7, JSON.stringify(rows)])).toEqual({ changes: 2 });
    await sql.run(upsert, [7, JSON.stringify([[2, 'replaced']])]);
    expect(await sql.all('SELECT id, body FROM notes ORDER BY id')).toEqual([
      { id: 1, body: 'one "quoted" ünïcode › body' },
      { id: 2, body: 'replaced' },
    ]);
  });

  it('never shows a transaction’s uncommitted rows to another caller', async () => {
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const writing = sql.transaction(async (tx) => {
      await insert(tx, 1, 'pending');
      inside();
      await finishing;
    });
    await entered;
    const read = sql.all('SELECT id FROM notes');
    if (sql.dialect === 'postgres') {
      // Another connection of the pool: it reads the table as it was.
      expect(await read).toEqual([]);
      finish();
    } else {
      // The one connection: the read waits for the commit.
      let settled = false;
      void read.then(() => (settled = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      finish();
      expect(await read).toEqual([{ id: 1 }]);
    }
    await writing;
    expect(await sql.all('SELECT id FROM notes')).toEqual([{ id: 1 }]);
  });

  it('runs transactions begun at the same moment one after the other, with reads waiting outside them', async () => {
    const blocker = sql.transaction(async (tx) => {
      await insert(tx, 1, 'first');
      await new Promise((resolve) => setImmediate(resolve));
    });
    // Woken together when the first one ends: each must still wait for the one before it.
    const pair = (id: number) =>
      sql.transaction(async (tx) => {
        await insert(tx, id, `pair ${id}`);
        await new Promise((resolve) => setImmediate(resolve));
        await insert(tx, id + 1, `pair ${id + 1}`);
      });
    const later = [pair(10), pair(20), sql.all<{ id: number }>('SELECT id FROM notes ORDER BY id'), pair(30)];
    await blocker;
    const [, , read] = await Promise.all(later);
    // Never half of a pair: a transaction's rows are seen all at once, or not at all.
    const seen = (read as { id: number }[]).map((row) => row.id);
    expect(seen.filter((id) => id >= 10 && !seen.includes(id % 10 === 0 ? id + 1 : id - 1))).toEqual([]);
    expect(await sql.all('SELECT id FROM notes ORDER BY id')).toEqual([1, 10, 11, 20, 21, 30, 31].map((id) => ({ id })));
  });
});

describe('the postgres store, when the server ends a connection a transaction holds', () => {
  it('fails that transaction (no uncaught error) and goes on with another connection', async () => {
    const sql = PostgresSql.connect({ url: postgres.url, poolSize: 2 });
    try {
      const ending = sql.transaction(async (tx) => {
        const { pid } = (await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!;
        await sql.get('SELECT pg_terminate_backend(?) AS ended', [pid]);
        while ((await sql.get<{ n: number }>('SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ?', [pid]))!.n > 0) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        // The server is gone; its closing reaches this connection while no statement is under way.
        await new Promise((resolve) => setTimeout(resolve, 100));
        return tx.get('SELECT 1 AS one');
      });
      await expect(ending).rejects.toThrow();
      expect(await sql.get('SELECT 1 AS one')).toEqual({ one: 1 });
    } finally {
      await sql.close();
    }
  });
});

describe('the postgres store, reading rows by binary COPY (copyRows)', () => {
  const NOTES = 'CREATE TABLE IF NOT EXISTS copied (id bigint PRIMARY KEY, data bytea, body text)';
  /** Every byte value, so that a decoding of the bytes as text would show. */
  const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const rowsOf = (row: readonly (Buffer | null)[]) => ({ id: row[0] ? Number(row[0].readBigInt64BE(0)) : null, data: row[1] && Buffer.from(row[1]), body: row[2]?.toString('utf8') ?? null });

  it('hands over each row as it is stored (bytea as its bytes, bigint, NULL), in a transaction what it wrote', async () => {
    const sql = PostgresSql.connect({ url: postgres.url, poolSize: 2 });
    try {
      await sql.exec(`DROP TABLE IF EXISTS copied; ${NOTES}`);
      await sql.run('INSERT INTO copied (id, data, body) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)', [1, ALL_BYTES, 'é', 2 ** 40, null, null, 3, Buffer.alloc(100_000, 7), '']);
      const rows: unknown[] = [];
      await postgresOf(sql)!.copyRows('SELECT id, data, body FROM copied ORDER BY id', (row) => rows.push(rowsOf(row)));
      expect(rows).toEqual([
        { id: 1, data: ALL_BYTES, body: 'é' },
        { id: 3, data: Buffer.alloc(100_000, 7), body: '' },
        { id: 2 ** 40, data: null, body: null },
      ]);
      const inside = await sql.transaction(async (tx) => {
        await tx.run('INSERT INTO copied (id) VALUES (4)');
        const ids: unknown[] = [];
        await postgresOf(tx)!.copyRows('SELECT id FROM copied ORDER BY id', (row) => ids.push(rowsOf(row).id));
        return ids;
      });
      expect(inside).toEqual([1, 3, 4, 2 ** 40]);
      expect(postgresOf(new SqliteSql(new Database(':memory:')))).toBeUndefined();
    } finally {
      await sql.close();
    }
  });

  it('rejects an error of the statement or of the callback, and the store goes on on the same connection', async () => {
    const sql = PostgresSql.connect({ url: postgres.url, poolSize: 1 });
    try {
      await sql.exec(NOTES);
      await expect(postgresOf(sql)!.copyRows('SELECT nothing FROM copied', () => {})).rejects.toThrow(/nothing/);
      await expect(
        postgresOf(sql)!.copyRows('SELECT id FROM generate_series(1, 3) AS id', () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await sql.get('SELECT 1 AS one')).toEqual({ one: 1 });
    } finally {
      await sql.close();
    }
  });

  it('puts together a row that comes in several messages, whatever the cuts', () => {
    const field = (bytes: Buffer | null) => {
      const length = Buffer.alloc(4);
      length.writeInt32BE(bytes === null ? -1 : bytes.length);
      return bytes === null ? length : Buffer.concat([length, bytes]);
    };
    const row = (...fields: (Buffer | null)[]) => {
      const count = Buffer.alloc(2);
      count.writeInt16BE(fields.length);
      return Buffer.concat([count, ...fields.map(field)]);
    };
    const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(4), Buffer.from([0, 0, 0, 2, 9, 9])]);
    const trailer = Buffer.from([0xff, 0xff]);
    const stream = Buffer.concat([header, row(ALL_BYTES, null), row(Buffer.from('x')), trailer]);
    for (const cut of [1, 2, 3, 5, 17, 256, stream.length]) {
      const rows: unknown[] = [];
      const copy = new BinaryCopy('SELECT 1', (fields) => rows.push(fields.map((bytes) => bytes && Buffer.from(bytes))));
      // The parser's buffer is reused from one message to the next: each message here is overwritten after use.
      const message = Buffer.alloc(cut);
      for (let at = 0; at < stream.length; at += cut) {
        const part = stream.subarray(at, at + cut);
        part.copy(message);
        copy.handleCopyData({ chunk: message.subarray(0, part.length) });
        message.fill(0xee);
      }
      copy.handleReadyForQuery();
      expect(rows).toEqual([[ALL_BYTES, null], [Buffer.from('x')]]);
    }
  });
});
