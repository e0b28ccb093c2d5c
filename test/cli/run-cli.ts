/** Drives the built `guru-mcp` bin as a child process; the build is kept fresh by test/global-setup.ts. */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, PATH_BIN_DIR } from '../global-setup.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = BIN;
/** `guru-mcp` on the PATH (global-setup.ts), as after `npm link`: what runCli starts. */
const ON_PATH = join(PATH_BIN_DIR, 'guru-mcp');

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

/**
 * Runs `guru-mcp` from the PATH; `asCloned` runs `node dist/bin/guru-mcp.js` from the project
 * directory instead, as a person does after a clone (guru-mcp then is on no PATH).
 */
export function runCli(args: readonly string[], options: { input?: string; env?: Record<string, string>; asCloned?: boolean } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env = options.asCloned ? cleanEnv(options.env) : { ...cleanEnv(options.env), PATH: `${PATH_BIN_DIR}${delimiter}${process.env.PATH ?? ''}` };
    const argv = options.asCloned ? [MAIN, ...args] : [ON_PATH, ...args];
    const child = spawn(process.execPath, argv, { env, stdio: ['pipe', 'pipe', 'pipe'], ...(options.asCloned ? { cwd: ROOT } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Runs the bin on a terminal (util-linux `script` gives it one), typing `input`; stdout holds the terminal's output. */
export function runOnTerminal(args: readonly string[], input: string): Promise<CliResult> {
  const command = [process.execPath, MAIN, ...args].map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr: '' }));
    child.stdin.end(input);
  });
}
