/**
 * A throwaway `redis-server` on loopback for tests: no persistence, its files in a temporary
 * directory, on a free port; ready once it answers PING, stopped (and its directory removed) by
 * `stop()`. A machine without redis-server fails the test that asks for one: CI installs it
 * (.ci/run), and nothing here is skipped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';

const clientOf = (port: number) => createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
type RedisClient = ReturnType<typeof clientOf>;

export const REDIS_SERVER = process.env.GURU_TEST_REDIS_SERVER ?? 'redis-server';

export interface TestRedis {
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /** A client of this server, for looking at what the code under test stored. */
  readonly client: RedisClient;
  stop(): Promise<void>;
}

/** Starts redis-server on loopback (a free port unless `port` is given) and waits until it answers PING. */
export async function startRedis(port?: number): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'guru-redis-'));
  port ??= await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`${REDIS_SERVER} could not be started (CI installs the redis-server package): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`${REDIS_SERVER} exited with ${code} before answering PING:\n${output}`)));
  });
  failed.catch(() => undefined);
  let client: RedisClient;
  try {
    client = await Promise.race([connected(port), failed]);
  } catch (error) {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    stop: async () => {
      if (client.isOpen) client.destroy();
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A client once the server answers PING: it listens once it has loaded, a moment after the spawn. */
async function connected(port: number): Promise<RedisClient> {
  for (;;) {
    const client = clientOf(port);
    client.on('error', () => {});
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return client;
    } catch {
      // Not listening yet.
    }
    if (client.isOpen) client.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

/** A port nothing listens on now (the OS's pick for port 0, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
