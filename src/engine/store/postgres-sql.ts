/**
 * The store port over a PostgreSQL connection pool (`pg`). Statements are written as for SQLite,
 * with `?` or `@name` placeholders; they are numbered (`$1`…) once per text and run as named
 * prepared statements. Integers come back as numbers (ids and counts stay far below 2^53), as
 * SQLite gives them.
 */
import pg from 'pg';
import { BinaryCopy, type CopiedRow, type RowCopier } from './postgres-copy.js';
import { MAX_PREPARED, type Params, type RunResult, type Sql, type Store } from './sql.js';

/** int8 (counts, bigserial ids) and numeric (sums) as numbers, the rest as pg parses them. */
const NUMERIC_TYPES = new Set([20, 1700]);
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    NUMERIC_TYPES.has(oid) ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** A statement numbered for PostgreSQL: its text and, for `@name` placeholders, which name each `$n` is. */
interface Numbered {
  /** Its prepared statement's name on every connection; undefined for a text not kept (run unprepared). */
  readonly name: string | undefined;
  readonly text: string;
  readonly names: readonly string[] | undefined;
}

/**
 * Turns `?` and `@name` placeholders into `$1`…, leaving string literals, quoted names, comments
 * and dollar-quoted bodies as they are. A statement uses one kind of placeholder.
 */
export function numberPlaceholders(statement: string): { text: string; names: string[] | undefined } {
  let text = '';
  let positional = 0;
  const names: string[] = [];
  for (let i = 0; i < statement.length; ) {
    const c = statement[i]!;
    const skipTo = (end: string, from: number): number => {
      const at = statement.indexOf(end, from);
      return at < 0 ? statement.length : at + end.length;
    };
    let next = i + 1;
    if (c === "'" || c === '"') next = skipTo(c, i + 1);
    else if (c === '-' && statement[i + 1] === '-') next = skipTo('\n', i);
    else if (c === '/' && statement[i + 1] === '*') next = skipTo('*/', i + 2);
    else if (c === '$' && /^\$[A-Za-z_]*\$/.test(statement.slice(i))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(statement.slice(i))![0];
      next = skipTo(tag, i + tag.length);
    } else if (c === '?') {
      positional += 1;
      text += `$${positional}`;
      i = next;
      continue;
    } else if (c === '@' && /[A-Za-z_]/.test(statement[i + 1] ?? '') && statement[i - 1] !== '@') {
      const name = /^@([A-Za-z_][A-Za-z0-9_]*)/.exec(statement.slice(i))![1]!;
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      text += `$${index + 1}`;
      i += name.length + 1;
      continue;
    }
    text += statement.slice(i, next);
    i = next;
  }
  if (positional > 0 && names.length > 0) throw new Error('a statement uses either ? or @name placeholders, not both');
  return { text, names: names.length > 0 ? names : undefined };
}

const valuesOf = (numbered: Numbered, params: Params | undefined): unknown[] => {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params as unknown[];
  const named = params as Readonly<Record<string, unknown>>;
  return (numbered.names ?? []).map((name) => {
    if (!(name in named)) throw new Error(`no value for @${name}`);
    return named[name];
  });
};

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** The numbered statements, shared by the pool's handles: a statement's name stands for one text on every connection. */
class Statements {
  readonly #numbered = new Map<string, Numbered>();

  numbered(statement: string): Numbered {
    let numbered = this.#numbered.get(statement);
    if (numbered) return numbered;
    // The engine's statements are constants; a text built per call beyond the cap is not kept
    // prepared on every connection of the pool.
    const kept = this.#numbered.size < MAX_PREPARED;
    numbered = { name: kept ? `guru_${this.#numbered.size + 1}` : undefined, ...numberPlaceholders(statement) };
    if (kept) this.#numbered.set(statement, numbered);
    return numbered;
  }
}

class PostgresHandle implements Sql, RowCopier {
  readonly dialect = 'postgres' as const;
  readonly #on: Queryable;
  protected readonly statements: Statements;

  constructor(on: Queryable, statements: Statements) {
    this.#on = on;
    this.statements = statements;
  }

  async #query<Row>(statement: string, params: Params | undefined): Promise<pg.QueryResult<Row & pg.QueryResultRow>> {
    const numbered = this.statements.numbered(statement);
    const values = valuesOf(numbered, params);
    return this.#on.query<Row & pg.QueryResultRow>(numbered.name === undefined ? { text: numbered.text, values } : { name: numbered.name, text: numbered.text, values });
  }

  async all<Row>(statement: string, params?: Params): Promise<Row[]> {
    return (await this.#query<Row>(statement, params)).rows;
  }

  async get<Row>(statement: string, params?: Params): Promise<Row | undefined> {
    return (await this.#query<Row>(statement, params)).rows[0];
  }

  async run(statement: string, params?: Params): Promise<RunResult> {
    return { changes: (await this.#query(statement, params)).rowCount ?? 0 };
  }

  async exec(statements: string): Promise<void> {
    await this.#on.query(statements);
  }

  async copyRows(select: string, onRow: (row: CopiedRow) => void): Promise<void> {
    const copy = new BinaryCopy(select, onRow);
    if (this.#on instanceof pg.Pool) {
      return onConnection(this.#on, (client) => {
        client.query(copy);
        return copy.done;
      });
    }
    (this.#on as pg.PoolClient).query(copy);
    return copy.done;
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return work(this);
  }

  /** PostgreSQL locks rows, not the store: a transaction can always begin. */
  transactionIfFree<T>(work: (tx: Sql) => Promise<T>): Promise<T | undefined> {
    return this.transaction(work);
  }

  runIfFree(statement: string, params?: Params): Promise<RunResult | undefined> {
    return this.run(statement, params);
  }
}

/**
 * Runs `work` on a connection of the pool, given back after it, or closed when it broke: when
 * `work` says so, or when the server ended it. The pool listens for errors of idle connections
 * only: one the server ends while it is taken (a restart, a terminated backend) would otherwise be
 * an uncaught error that ends the process; `work`'s next statement fails instead.
 */
async function onConnection<T>(pool: pg.Pool, work: (client: pg.PoolClient, broke: (error: Error) => void) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const broke = (error: Error): void => {
    broken = error;
  };
  client.on('error', broke);
  try {
    return await work(client, broke);
  } finally {
    client.off('error', broke);
    client.release(broken);
  }
}

export interface PostgresSettings {
  /** `postgresql://user:password@host:port/database` */
  readonly url: string;
  /** Connections in the pool (default 10). */
  readonly poolSize?: number;
  /** How long opening a connection (or waiting for one of a full pool) may take; no limit unless set. */
  readonly connectTimeoutMs?: number;
}

export class PostgresSql extends PostgresHandle implements Store {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    super(pool, new Statements());
    this.#pool = pool;
  }

  /** A pool on `url`; connections open on first use. */
  static connect(settings: PostgresSettings): PostgresSql {
    const pool = new pg.Pool({
      connectionString: settings.url,
      max: settings.poolSize ?? 10,
      types,
      application_name: 'guru-mcp',
      // Each prepared statement planned once per connection: search and its marking of words run 10–30 % faster at p50 (bench/experiments/pg-bm25/plan-cache.mjs).
      options: '-c plan_cache_mode=force_generic_plan',
      ...(settings.connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: settings.connectTimeoutMs }),
    });
    // An idle connection that the server drops must not crash the process: the pool replaces it.
    pool.on('error', () => {});
    return new PostgresSql(pool);
  }

  override transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return onConnection(this.#pool, async (client, broke) => {
      await client.query('BEGIN');
      try {
        const result = await work(new PostgresHandle(client, this.statements));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // A connection whose rollback failed is closed, not given back to the pool.
        await client.query('ROLLBACK').catch(broke);
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
