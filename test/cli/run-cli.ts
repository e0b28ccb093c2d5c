/**
 * Drives the built `guru-mcp` (dist/cli/main.js) as a child process. The build
 * is brought up to date once per test run: `npm test` builds in `pretest`; a
 * direct `vitest run` rebuilds here when src/ is newer than dist/.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = join(ROOT, 'dist', 'cli', 'main.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  try {
    return statSync(MAIN).mtimeMs >= newestSource(join(ROOT, 'src'));
  } catch {
    return false;
  }
}

/** Test files run in parallel processes; a lock directory lets only one of them build. */
const LOCK = join(tmpdir(), `guru-mcp-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
const STALE_LOCK_MS = 5 * 60_000;

function tryLock(): boolean {
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    } catch {
      // The holder released it meanwhile.
    }
    return false;
  }
}

export async function ensureBuilt(): Promise<void> {
  while (!isFresh()) {
    if (!tryLock()) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (isFresh()) return;
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
      // Type errors elsewhere still emit JavaScript; only a build that produced nothing is fatal.
      if (build.status !== 0 && !isFresh()) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment without the caller's GURU_* settings, so that only the test's flags count. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GURU_')));
  return { ...env, ...extra };
}

export function runCli(args: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
