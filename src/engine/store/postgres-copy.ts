/**
 * What only the PostgreSQL store has, reached without loading `pg` (the SQLite store never loads
 * it): reading rows by a binary COPY. ./postgres-sql.ts implements it.
 */
import { Buffer } from 'node:buffer';
import type pg from 'pg';
import type { Sql } from './sql.js';

export interface RowCopier {
  /**
   * The rows of a SELECT (no parameters: the values are in its text) in PostgreSQL's binary
   * format, streamed: `onRow` sees each row's fields as bytes (a bigint is 8 bytes big-endian, a
   * bytea its bytes), valid only while it runs. An error `onRow` throws rejects the promise once
   * the server is done.
   */
  copyRows(select: string, onRow: (row: CopiedRow) => void): Promise<void>;
}

/** The PostgreSQL store under a handle, when it is one (as sqliteOf for SQLite). */
export const postgresOf = (sql: Sql): RowCopier | undefined =>
  sql.dialect === 'postgres' && typeof (sql as Partial<RowCopier>).copyRows === 'function' ? (sql as Sql & RowCopier) : undefined;

/** A row of a binary COPY: each field's bytes (null for NULL), valid only while the callback runs. */
export type CopiedRow = readonly (Buffer | null)[];

/** What starts a binary COPY's output: its signature, then flags and a header extension (their lengths). */
const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * `COPY (…) TO STDOUT (FORMAT binary)` on one connection, each row handed over as it arrives. Of
 * the results node-postgres reads, a bytea comes as hex text (the server encodes it, the client
 * decodes it: most of the time of reading vectors) and its binary results decode every value as
 * UTF-8 (a bytea comes out mangled); a binary COPY sends the bytes as they are stored.
 * The rows are parsed as the format says (postgresql.org/docs/15/sql-copy.html): a row may span
 * messages, though the server sends one a message.
 */
export class BinaryCopy implements pg.Submittable {
  readonly done: Promise<void>;
  readonly #text: string;
  readonly #onRow: (row: CopiedRow) => void;
  /** Bytes of a row not complete yet (or of the header). */
  #carry: Buffer | undefined;
  #headerRead = false;
  /** The callback's error: the rest of the data is ignored, the promise rejects when the server is done. */
  #failed: unknown;
  #settle!: (error?: unknown) => void;

  constructor(select: string, onRow: (row: CopiedRow) => void) {
    this.#text = `COPY (${select}) TO STDOUT (FORMAT binary)`;
    this.#onRow = onRow;
    this.done = new Promise((resolve, reject) => {
      this.#settle = (error) => (error === undefined ? resolve() : reject(error as Error));
    });
  }

  submit(connection: pg.Connection): void {
    connection.query(this.#text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    if (this.#failed !== undefined) return;
    try {
      const data = this.#carry === undefined ? message.chunk : Buffer.concat([this.#carry, message.chunk]);
      const used = this.#rows(data);
      // The parser's buffer is reused: what is kept beyond this call is copied.
      this.#carry = used < data.length ? Buffer.from(data.subarray(used)) : undefined;
    } catch (error) {
      this.#failed = error;
    }
  }

  /** Hands over every complete row of `data`; returns how many bytes it used. */
  #rows(data: Buffer): number {
    let at = 0;
    if (!this.#headerRead) {
      const fixed = COPY_SIGNATURE.length + 8;
      if (data.length < fixed) return 0;
      if (!data.subarray(0, COPY_SIGNATURE.length).equals(COPY_SIGNATURE)) throw new Error('not a binary COPY');
      const headerEnd = fixed + data.readUInt32BE(fixed - 4);
      if (data.length < headerEnd) return 0;
      at = headerEnd;
      this.#headerRead = true;
    }
    for (;;) {
      if (data.length < at + 2) return at;
      const count = data.readInt16BE(at);
      if (count === -1) return data.length; // the trailer
      const row: (Buffer | null)[] = [];
      let next = at + 2;
      for (let field = 0; field < count; field += 1) {
        if (data.length < next + 4) return at;
        const length = data.readInt32BE(next);
        next += 4;
        if (length === -1) {
          row.push(null);
          continue;
        }
        if (data.length < next + length) return at;
        row.push(data.subarray(next, next + length));
        next += length;
      }
      this.#onRow(row);
      at = next;
    }
  }

  handleReadyForQuery(): void {
    this.#settle(this.#failed);
  }

  handleError(error: Error): void {
    this.#settle(error);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
}
