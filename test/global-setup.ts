/**
 * Runs once before all test files: tests that spawn `guru-mcp` need the built
 * bin, so rebuild when any source is newer than it. `npm test` has already
 * built in `pretest`; a direct `vitest run` after an edit is what this catches.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = join(ROOT, 'dist', 'bin', 'guru-mcp.js');
/**
 * A directory holding `guru-mcp`, a link to the built bin, as `npm link` or a global install
 * would: tests run the command from the PATH (test/cli/run-cli.ts), so hints name it `guru-mcp`.
 * One per checkout, kept between runs.
 */
export const PATH_BIN_DIR = join(tmpdir(), `guru-mcp-path-bin-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`);

function linkOnPath(): void {
  const link = join(PATH_BIN_DIR, 'guru-mcp');
  try {
    if (readlinkSync(link) === BIN) return;
  } catch {
    // Not there yet.
  }
  mkdirSync(PATH_BIN_DIR, { recursive: true });
  symlinkSync(BIN, link);
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return statSync(BIN).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  linkOnPath();
  if (builtAt() >= newestSource(join(ROOT, 'src'))) return;
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
