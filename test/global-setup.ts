/**
 * Runs once before all test files: tests that spawn `guru-mcp` need the built
 * bin, so rebuild when any source is newer than it. `npm test` has already
 * built in `pretest`; a direct `vitest run` after an edit is what this catches.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = join(ROOT, 'dist', 'bin', 'guru-mcp.js');

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
  if (builtAt() >= newestSource(join(ROOT, 'src'))) return;
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
