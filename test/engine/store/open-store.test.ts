/**
 * openStore: the data directory's SQLite file by default, PostgreSQL (a throwaway server on
 * loopback) migrated when a database URL is set; errors on the way there that say what to fix and
 * never carry the password; and `pg` loaded only on that path.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { DATABASE_FILE } from '../../../src/engine/store/database.js';
import { openStore } from '../../../src/engine/store/open-store.js';
import { POSTGRES_MIGRATIONS } from '../../../src/engine/store/postgres-migrations.js';
import { ROOT } from '../../cli/run-cli.js';
import { asSuperuser, freshDatabase, urlOf } from '../../support/postgres-databases.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

let postgres: TestPostgres;
let password: string;
const dirs: string[] = [];
const dataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'guru-open-store-'));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  postgres = await startPostgres();
  password = decodeURIComponent(new URL(postgres.url).password);
}, 180_000);

afterAll(async () => {
  await postgres?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Everything an error could show: its message, stack, fields and causes. */
const everythingOf = (error: unknown): string => `${String(error)}\n${(error as Error).stack}\n${JSON.stringify(error)}\n${inspect(error, { depth: 8 })}`;

/** The error openStore fails with, and the log lines written meanwhile. */
async function failure(databaseUrl: string, connectTimeoutMs?: number): Promise<{ message: string; everything: string; log: string }> {
  const lines: string[] = [];
  const logger = createLogger('debug', (line) => lines.push(line));
  const dir = dataDir();
  const error = await openStore({ dataDir: dir, databaseUrl, logger }, connectTimeoutMs === undefined ? {} : { connectTimeoutMs }).then(
    async (store) => {
      await store.close();
      throw new Error('opened');
    },
    (caught: unknown) => caught as Error,
  );
  // The PostgreSQL path never makes a SQLite file of its own.
  expect(existsSync(join(dir, DATABASE_FILE))).toBe(false);
  return { message: error.message, everything: everythingOf(error), log: lines.join('') };
}

const withPassword = (url: string, secret: string): string => {
  const changed = new URL(url);
  changed.password = secret;
  return changed.href;
};

describe('openStore', () => {
  it('opens the data directory’s SQLite file without a database URL', async () => {
    const dir = dataDir();
    const store = await openStore({ dataDir: dir });
    try {
      expect(store.dialect).toBe('sqlite');
      expect(existsSync(join(dir, DATABASE_FILE))).toBe(true);
      expect(await store.get('SELECT count(*) AS n FROM gurus')).toEqual({ n: 0 });
    } finally {
      await store.close();
    }
  });

  it('opens PostgreSQL with its schema migrated when a database URL is set, logging the server but not the password', async () => {
    const lines: string[] = [];
    const url = await freshDatabase(postgres);
    const dir = dataDir();
    const store = await openStore({ dataDir: dir, databaseUrl: url, logger: createLogger('debug', (line) => lines.push(line)) });
    try {
      expect(store.dialect).toBe('postgres');
      expect(await store.get('SELECT count(*) AS n FROM gurus')).toEqual({ n: 0 });
      expect(await store.all('SELECT version FROM schema_migrations ORDER BY version')).toEqual(POSTGRES_MIGRATIONS.map(({ version }) => ({ version })));
      expect(existsSync(join(dir, DATABASE_FILE))).toBe(false);
    } finally {
      await store.close();
    }
    const log = lines.join('');
    expect(log).toContain('durable store in PostgreSQL');
    expect(log).toContain(`127.0.0.1:${postgres.port}`);
    expect(log).not.toContain(password);
  });

  it('names the server it cannot reach and the setting to check', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const { message, everything, log } = await failure(`postgresql://guru:${password}@127.0.0.1:${closed}/guru`);
    expect(message).toBe(
      `Cannot reach PostgreSQL at 127.0.0.1:${closed} (ECONNREFUSED): check GURU_DATABASE_URL (or --database-url), and that the server runs and accepts connections there`,
    );
    expect(everything).not.toContain(password);
    expect(log).not.toContain(password);
  });

  it('names a server that accepts the connection but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      // The stand-in never answers: the timeout is reached however fast or slow the machine is.
      const { message, everything } = await failure(`postgresql://guru:${password}@127.0.0.1:${port}/guru`, 200);
      expect(message).toMatch(new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${port} did not answer within 0\\.2 s: check GURU_DATABASE_URL`));
      expect(everything).not.toContain(password);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('says a password was refused, without the password given or the right one', async () => {
    const wrong = 'Wr0ng-pässword/with:specials';
    const { message, everything, log } = await failure(withPassword(postgres.url, encodeURIComponent(wrong)));
    expect(message).toBe(`PostgreSQL at 127.0.0.1:${postgres.port} refused the password of user "guru": check the password in GURU_DATABASE_URL (or --database-url)`);
    for (const secret of [wrong, encodeURIComponent(wrong), password]) {
      expect(everything).not.toContain(secret);
      expect(log).not.toContain(secret);
    }
  });

  it('says the URL has no password when the server asks for one', async () => {
    const { message } = await failure(withPassword(postgres.url, ''));
    expect(message).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+ asks user "guru" for a password, and GURU_DATABASE_URL \(or --database-url\) has none/);
  });

  it('names a database that does not exist', async () => {
    const { message, everything } = await failure(urlOf(postgres, 'no_such_db'));
    expect(message).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+ has no database "no_such_db": create it/);
    expect(everything).not.toContain(password);
  });

  it('says when the user may not create the tables', async () => {
    const secret = 'reader-secret-1234';
    await asSuperuser(postgres, [`CREATE ROLE reader LOGIN PASSWORD '${secret}'`, 'CREATE DATABASE not_theirs']);
    const url = withPassword(urlOf(postgres, 'not_theirs'), secret).replace('//guru:', '//reader:');
    const { message, everything } = await failure(url);
    expect(message).toMatch(/^user "reader" may not create guru-mcp's tables in database "not_theirs" at 127\.0\.0\.1:\d+ .*: make the user the database's owner/);
    expect(everything).not.toContain(secret);
  });
});

describe('loading pg', () => {
  it('is not among what the built command loads as it starts (dist/bin, from npm run build)', () => {
    const bin = join(ROOT, 'dist', 'bin');
    const staticImport = /(?:^|[;\n])\s*import\s*(?:[^'"();]*?\bfrom\s*)?["']\.\/([^"']+)["']/g;
    const loaded = new Set<string>();
    const visit = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const [, imported] of readFileSync(join(bin, file), 'utf8').matchAll(staticImport)) visit(imported!);
    };
    visit('guru-mcp.js');
    expect(loaded.size).toBeGreaterThan(1);
    // pg's SCRAM client says this: no file loaded at start carries pg.
    const carriesPg = (file: string): boolean => readFileSync(join(bin, file), 'utf8').includes('SCRAM-SERVER-FIRST-MESSAGE');
    expect(readdirSync(bin).filter((file) => file.endsWith('.js') && carriesPg(file)).length).toBeGreaterThan(0);
    expect([...loaded].filter(carriesPg)).toEqual([]);
  });
});
