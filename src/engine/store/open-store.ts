/**
 * Opens the engine's durable store: the SQLite file of the data directory by default, PostgreSQL
 * when a database URL is set (GURU_DATABASE_URL, --database-url), its schema migrated first.
 *
 * `pg` and the PostgreSQL store are imported only then: the embedded path, the stdio server's
 * start-up among them, never loads them (the bundle keeps them in a chunk of their own).
 *
 * What goes wrong on the way to PostgreSQL is said so that the user can act on it: the server that
 * could not be reached (host:port), a password refused, a database missing, a user that may not
 * create tables. The URL's password never appears in an error or a log line.
 */
import type { EngineSettings } from '../context.js';
import { silentLogger } from '../../log.js';
import { openDatabase } from './database.js';
import { NewerSchemaError } from './migrations.js';
import type { Store } from './sql.js';
import { SqliteSql } from './sqlite-sql.js';

export type StoreSettings = Pick<EngineSettings, 'dataDir' | 'databaseUrl' | 'logger'>;

export interface StoreOptions {
  /** How long connecting to PostgreSQL (or waiting for a connection of a full pool) may take. */
  readonly connectTimeoutMs?: number;
}

/** How long a connection to PostgreSQL may take to open: as long as a SQLite write may wait for the lock, twice. */
export const CONNECT_TIMEOUT_MS = 10_000;

const CHECK = 'check GURU_DATABASE_URL (or --database-url)';

/** The store of the settings, ready for the engine's statements. */
export async function openStore(settings: StoreSettings, options: StoreOptions = {}): Promise<Store> {
  if (settings.databaseUrl === undefined) return new SqliteSql(openDatabase(settings.dataDir));
  return openPostgres(settings.databaseUrl, settings, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
}

async function openPostgres(url: string, settings: StoreSettings, connectTimeoutMs: number): Promise<Store> {
  const server = serverOf(url);
  const [{ PostgresSql }, { migratePostgres }] = await Promise.all([import('./postgres-sql.js'), import('./postgres-migrations.js')]);
  const store = PostgresSql.connect({ url, connectTimeoutMs });
  try {
    const schema = await migratePostgres(store);
    (settings.logger ?? silentLogger).info('durable store in PostgreSQL', { server: server.address, database: server.database, schema });
    return store;
  } catch (error) {
    await store.close().catch(() => undefined);
    throw openingError(error, server, connectTimeoutMs);
  }
}

/** What an error may say of the server: never its password. */
interface Server {
  /** host:port, or the socket directory and port */
  readonly address: string;
  readonly user: string;
  readonly database: string;
  /** Only to take it out of messages that might repeat it. */
  readonly password: string;
}

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

function serverOf(url: string): Server {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`GURU_DATABASE_URL (or --database-url) is not a URL: postgresql://USER:PASSWORD@HOST:PORT/DATABASE`);
  }
  const user = decoded(parsed.username);
  const host = decoded(parsed.hostname) || parsed.searchParams.get('host') || 'localhost';
  const port = parsed.port || parsed.searchParams.get('port') || '5432';
  return { address: `${host}:${port}`, user, database: decoded(parsed.pathname.slice(1)) || user, password: decoded(parsed.password) };
}

/** Codes of a server that cannot be reached at all (from Node's net and dns). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EADDRNOTAVAIL', 'ENOENT']);

const codeOf = (error: unknown): string | undefined => {
  // Node tries each address of a name in turn and reports them all in one AggregateError.
  const first = error instanceof AggregateError && error.errors.length > 0 ? (error.errors[0] as unknown) : error;
  const code = (first as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** The error to show for `error`, met while connecting to `server` and migrating its schema. */
function openingError(error: unknown, server: Server, connectTimeoutMs: number): Error {
  if (error instanceof NewerSchemaError) return error;
  const at = `PostgreSQL at ${server.address}`;
  const who = server.user === '' ? 'the default user' : `user "${server.user}"`;
  const message = error instanceof Error ? error.message : String(error);
  const code = codeOf(error);
  let said: string;
  if (code !== undefined && UNREACHABLE.has(code)) {
    said = `Cannot reach ${at} (${code}): ${CHECK}, and that the server runs and accepts connections there`;
  } else if (/connection timeout|timeout expired|timeout exceeded when trying to connect/i.test(message)) {
    said = `${at} did not answer within ${connectTimeoutMs / 1000} s: ${CHECK}, and that no firewall drops the connection`;
  } else if (code === '28P01') {
    said = `${at} refused the password of ${who}: check the password in GURU_DATABASE_URL (or --database-url)`;
  } else if (/client password must be a string/i.test(message)) {
    said = `${at} asks ${who} for a password, and GURU_DATABASE_URL (or --database-url) has none: postgresql://USER:PASSWORD@HOST:PORT/DATABASE`;
  } else if (code === '28000') {
    said = `${at} refused ${who}: ${message}; ${CHECK} and the server's pg_hba.conf`;
  } else if (code === '3D000') {
    said = `${at} has no database "${server.database}": create it (CREATE DATABASE ... OWNER ...) or ${CHECK}`;
  } else if (code === '42501') {
    said = `${who} may not create guru-mcp's tables in database "${server.database}" at ${server.address} (${message}): make the user the database's owner, or grant it CREATE on its schema`;
  } else {
    said = `Cannot open the store in ${at}, database "${server.database}": ${message}`;
  }
  return new Error(withoutPassword(said, server.password));
}

/** `text` with every copy of the password (as given and as written in the URL) taken out. */
function withoutPassword(text: string, password: string): string {
  if (password === '') return text;
  let result = text;
  for (const form of new Set([password, encodeURIComponent(password)])) result = result.split(form).join('***');
  return result;
}
