/**
 * A throwaway PostgreSQL server for tests: Debian's postgresql-15 binaries, a cluster in a temp
 * dir, listening on 127.0.0.1 on a free port, with a password user and a database of its own.
 * `initdb` and `pg_ctl` refuse to run as root, so as root the dir is handed to the `postgres` OS
 * user and every binary runs with its uid/gid; otherwise they run as the current user.
 *
 * Readiness is `pg_ctl -w` (it polls the server until it accepts connections), never a sleep.
 * No server outlives its test: stop() stops it and removes the dir, and a guard process (detached,
 * holding a pipe from this process) does the same if this process dies without calling stop().
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's postgresql-15 puts its binaries; GURU_TEST_PG_BIN overrides it. */
export const PG_BIN = process.env.GURU_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface TestPostgres {
  /** `postgresql://USER:PASSWORD@127.0.0.1:PORT/DATABASE` */
  readonly url: string;
  readonly port: number;
  /** The temp dir: `data/` (the cluster), `log`, and the Unix socket. */
  readonly dir: string;
  /** Stops the server (fast shutdown, waiting until it has exited) and removes the dir. Idempotent. */
  stop(): Promise<void>;
}

/** True when this machine has the PostgreSQL binaries the tests need. */
export const havePostgres = (): boolean => existsSync(join(PG_BIN, 'pg_ctl')) && existsSync(join(PG_BIN, 'initdb'));

interface Identity {
  readonly uid?: number;
  readonly gid?: number;
}

/** As root, the `postgres` OS user's uid/gid (from /etc/passwd); otherwise nothing (run as oneself). */
function identity(): Identity {
  if (process.getuid?.() !== 0) return {};
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (line === undefined) throw new Error('running as root, and there is no `postgres` OS user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A port that was free a moment ago (the server may still lose a race for it: start() retries). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A process that waits for its stdin to close (this process exited, however) and then stops the
 * server at once and removes the dir. Detached, so a signal sent to this process group spares it.
 */
function startGuard(dir: string, who: Identity): ChildProcess {
  const script = `cat >/dev/null; "$0" -D "$1/data" -m immediate -w stop >/dev/null 2>&1; rm -rf "$1"`;
  const guard = spawn('/bin/sh', ['-c', script, join(PG_BIN, 'pg_ctl'), dir], {
    ...who,
    cwd: dir,
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  guard.unref();
  // The pipe must not keep the event loop alive either; it is closed by stop() or by exiting.
  (guard.stdin as unknown as { unref?: () => void }).unref?.();
  return guard;
}

/** Starts a server; the caller stops it (afterAll) with stop(). */
export async function startPostgres(): Promise<TestPostgres> {
  // Like test/support/redis.ts: a machine without the server fails the test (CI installs it), nothing is skipped.
  if (!havePostgres()) throw new Error(`No PostgreSQL binaries in ${PG_BIN} (CI installs the postgresql-15 package; GURU_TEST_PG_BIN points elsewhere)`);
  const who = identity();
  const dir = mkdtempSync(join(tmpdir(), 'guru-pg-'));
  if (who.uid !== undefined) chownSync(dir, who.uid, who.gid ?? who.uid);
  const guard = startGuard(dir, who);
  const exec = (binary: string, args: readonly string[]) =>
    run(join(PG_BIN, binary), args, { ...who, cwd: dir, env: { ...process.env, LC_ALL: 'C.UTF-8', PGTZ: 'UTC' } });
  const data = join(dir, 'data');

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      if (existsSync(join(data, 'postmaster.pid'))) await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      const exited = new Promise<void>((resolve) => {
        if (guard.exitCode !== null || guard.signalCode !== null) resolve();
        else guard.once('exit', () => resolve());
      });
      guard.ref(); // an unref'd child would let the event loop end while this waits for it
      guard.stdin?.end();
      await exited;
    }
  };

  try {
    await exec('initdb', [
      '-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256',
      '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions',
    ]);
    let port = 0;
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      try {
        await exec('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '120', '-o', options, 'start']);
        break;
      } catch (error) {
        // Another process took the port between freePort() and the server's bind: try another.
        const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : '';
        if (attempt >= 3 || !/could not bind|Address already in use/i.test(log)) {
          throw new Error(`PostgreSQL did not start: ${String(error)}\n${log}`, { cause: error });
        }
      }
    }
    const user = 'guru';
    const password = randomBytes(12).toString('hex');
    const database = 'guru';
    await exec('psql', [
      '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', dir, '-p', String(port), '-U', 'postgres', '-d', 'postgres',
      '-c', `CREATE ROLE ${user} LOGIN PASSWORD '${password}'`,
      '-c', `CREATE DATABASE ${database} OWNER ${user}`,
    ]);
    return { url: `postgresql://${user}:${password}@127.0.0.1:${port}/${database}`, port, dir, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
