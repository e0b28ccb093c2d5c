// Runs a function of a benchmark module in a fresh Node process, so that its peak RSS and its CPU
// time are its own, and reads back what it returned (anything JSON can carry).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));

/**
 * `moduleUrl`'s export `name`, called with `args` in a child process.
 * @param {{ nodeFlags?: string[] }} [options] extra flags for node, e.g. --cpu-prof
 */
export async function runIsolated(moduleUrl, name, args, options = {}) {
  const outputDir = mkdtempSync(join(tmpdir(), 'guru-bench-out-'));
  const output = join(outputDir, 'result.json');
  try {
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), CHILD, moduleUrl, name, output, JSON.stringify(args)], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = await new Promise((done) => child.on('exit', (exitCode) => done(exitCode)));
    if (code !== 0) throw new Error(`${name}(${args.join(', ')}) exited with code ${code}`);
    return JSON.parse(readFileSync(output, 'utf8'));
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}
