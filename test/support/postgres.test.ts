/**
 * The throwaway PostgreSQL of the tests (test/support/postgres.ts): it starts, `pg` connects with
 * the URL's password and queries it, and after stop() nothing listens on the port and the dir is
 * gone. Also when the process that started it is killed without stopping it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from './postgres.js';

/** The part of `pg` used here (the package ships no types and @types/pg is not installed). */
interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
const loadPg = async (): Promise<{ Client: new (options: { connectionString: string }) => PgClient }> =>
  ((await import('pg' as string)) as { default: { Client: new (options: { connectionString: string }) => PgClient } }).default;

/** Resolves with the connection's outcome: 'open' or the error code (ECONNREFUSED once nothing listens). */
const probe = (port: number): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });

/** Waits (no deadline but the test's) until `check` holds, looking again after each probe. */
async function eventually(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setImmediate(resolve));
}

describe('a throwaway PostgreSQL', () => {
  const started: TestPostgres[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  it('serves queries over the URL, then stops, leaving no port open and no dir', { timeout: 120_000 }, async () => {
    const server = await startPostgres();
    started.push(server);
    expect(server.url).toMatch(/^postgresql:\/\/guru:[0-9a-f]+@127\.0\.0\.1:\d+\/guru$/);

    const { Client } = await loadPg();
    const client = new Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query('SELECT current_user AS who, current_database() AS db, $1::int + 1 AS n, version() AS version', [41]);
    await client.end();
    expect(rows[0]).toMatchObject({ who: 'guru', db: 'guru', n: 42 });
    expect(String(rows[0]?.version)).toMatch(/^PostgreSQL 1[5-9]/);

    const wrong = new Client({ connectionString: server.url.replace(/:[0-9a-f]+@/, ':wrong@') });
    await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);

    await server.stop();
    expect(await probe(server.port)).toBe('ECONNREFUSED');
    expect(existsSync(server.dir)).toBe(false);
    await server.stop(); // twice is harmless
  });

  it('is stopped and removed when the process that started it is killed', { timeout: 120_000 }, async () => {
    // A child process starts a server, reports it and waits; it is then killed with SIGKILL.
    // Node 20 runs no TypeScript: the child gets the module transpiled by esbuild.
    const scratch = mkdtempSync(join(tmpdir(), 'guru-pg-child-'));
    let child: ChildProcess | undefined;
    try {
      const support = join(scratch, 'postgres.mjs');
      const source = readFileSync(new URL('./postgres.ts', import.meta.url), 'utf8');
      writeFileSync(support, transformSync(source, { loader: 'ts', format: 'esm', platform: 'node' }).code);
      const script = `import { startPostgres } from ${JSON.stringify(support)};
        const server = await startPostgres();
        process.stdout.write(JSON.stringify({ port: server.port, dir: server.dir }) + '\\n');
        setInterval(() => {}, 1 << 30);`;
      const started = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child = started;
      const line = await new Promise<string>((resolve, reject) => {
        started.once('error', reject);
        let out = '';
        started.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out);
        });
        started.once('exit', (code) => reject(new Error(`the child exited (${code}) before reporting`)));
      });
      const { port, dir } = JSON.parse(line) as { port: number; dir: string };
      expect(await probe(port)).toBe('open');

      started.kill('SIGKILL');
      await eventually(async () => !existsSync(dir) && (await probe(port)) === 'ECONNREFUSED');
    } finally {
      child?.kill('SIGKILL'); // a test failing before the kill below leaves no child behind (its guard stops the server)
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
