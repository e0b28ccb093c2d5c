// Throwaway PostgreSQL and Redis servers on 127.0.0.1 for the `stores` part (and PostgreSQL for the
// `qa` part's GURU_BENCH_QA_STORES=postgres): PostgreSQL is the
// tests' own test/support/postgres.ts (Debian's postgresql-15 binaries, a cluster in a temp dir),
// compiled with esbuild as the pg-bm25 experiment does; Redis is a small copy of
// test/support/redis.ts (redis-server without persistence, ready once it answers PING). Both stop
// (and remove their folders) with stop().
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import { transformSync } from 'esbuild';
import pg from 'pg';
import { repoRoot } from './common.js';

export const PG_BIN = process.env.GURU_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';
export const REDIS_SERVER = process.env.GURU_TEST_REDIS_SERVER ?? 'redis-server';

/** Why PostgreSQL cannot be started here, or undefined. */
export function missingPostgres() {
  if (!existsSync(join(PG_BIN, 'pg_ctl'))) return `no PostgreSQL binaries in ${PG_BIN} (install postgresql-15, or set GURU_TEST_PG_BIN)`;
  return undefined;
}

/** Why the services cannot be started here, or undefined. */
export function missingServices() {
  const postgres = missingPostgres();
  if (postgres !== undefined) return postgres;
  if (spawnSync('sh', ['-c', `command -v "$0" >/dev/null`, REDIS_SERVER]).status !== 0) return `no ${REDIS_SERVER} (install redis-server, or set GURU_TEST_REDIS_SERVER)`;
  return undefined;
}

/**
 * test/support/postgres.ts's startPostgres(), plus `freshDatabase()`: an empty database owned by
 * the server's password user (made by the superuser over the server's Unix socket).
 * @returns {Promise<{ url: string, port: number, dir: string, freshDatabase: () => Promise<string>, stop: () => Promise<void> }>}
 */
export async function startPostgres() {
  const scratch = mkdtempSync(join(tmpdir(), 'guru-bench-pg-support-'));
  const supportJs = join(scratch, 'postgres.mjs');
  const source = readFileSync(join(repoRoot, 'test/support/postgres.ts'), 'utf8');
  writeFileSync(supportJs, transformSync(source, { loader: 'ts', format: 'esm', platform: 'node' }).code);
  let server;
  try {
    server = await (await import(supportJs)).startPostgres();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  let made = 0;
  return {
    url: server.url,
    port: server.port,
    dir: server.dir,
    freshDatabase: async () => {
      made += 1;
      const name = `bench_${process.pid}_${made}`;
      const admin = new pg.Client({ host: server.dir, port: server.port, user: 'postgres', database: 'postgres' });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name} OWNER guru`);
      } finally {
        await admin.end();
      }
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      return url.href;
    },
    stop: () => server.stop(),
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether redis-server on `port` answers PING with PONG. */
function pings(port) {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      text += chunk;
      if (text.includes('\r\n')) {
        socket.destroy();
        done(text.startsWith('+PONG'));
      }
    });
    socket.on('error', () => done(false));
  });
}

/** redis-server on loopback, no persistence; resolves once it answers PING. */
export async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'guru-bench-redis-'));
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`${REDIS_SERVER} exited with ${child.exitCode} before answering PING`);
    }
    if (await pings(port)) break;
    await sleep(20);
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}
