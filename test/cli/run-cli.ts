/** Drives the built `guru-mcp` bin as a child process; the build is kept fresh by test/global-setup.ts. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BIN } from '../global-setup.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = BIN;

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
