/** The built `guru-mcp serve` on a free loopback port, with a guru of its own, for tests that drive it over HTTP. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN } from '../global-setup.js';

const run = promisify(execFile);

export interface ServedGuru {
  /** `http://127.0.0.1:PORT`. */
  readonly base: string;
  readonly slug: string;
  readonly apiKey: string;
  readonly dataDir: string;
  close(): Promise<void>;
}

/** Creates guru `slug` in a temporary data directory, then starts `serve` there (private network allowed, no rate limit), with `extraArgs` after its own. */
export async function serveGuru(slug: string, extraEnv: Record<string, string> = {}, extraArgs: readonly string[] = []): Promise<ServedGuru> {
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-mcp-web-'));
  const env = { ...process.env, GURU_ALLOW_PRIVATE_NETWORK: '1', GURU_RATE_LIMIT_PER_MINUTE: '0', ...extraEnv };
  const { stdout } = await run(process.execPath, [BIN, 'guru', 'create', slug, '--name', 'Frobnicator', '--json', '--data-dir', dataDir], { env });
  const { api_key: apiKey } = JSON.parse(stdout) as { api_key: string };
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...extraArgs], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const base = await listeningOn(child);
  return {
    base,
    slug,
    apiKey,
    dataDir,
    close: async () => {
      await stop(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `http://127.0.0.1:PORT` once a starting `serve` (stderr piped) says where it listens; rejects if it exits first. */
export function listeningOn(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
  });
}

/** Stops a `serve` (SIGTERM) and waits until it has exited; one that has exited already (or was killed) is left as it is. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}
