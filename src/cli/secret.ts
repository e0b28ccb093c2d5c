/**
 * Reading a secret for a command: from an environment variable, else from
 * stdin. On a terminal the person is asked on stderr and nothing they type is
 * echoed; from a pipe the whole input is the secret, without its final newline.
 * Never from a flag: command lines show in process lists and shell history.
 */
import { CommandFailure } from './failures.js';
import type { Terminal } from './spec.js';

const ENTER = new Set(['\r', '\n', '\u0004']);
const CTRL_C = '\u0003';
const BACKSPACE = new Set(['\u007f', '\b']);

interface RawInput {
  setRawMode(mode: boolean): unknown;
  setEncoding(encoding: BufferEncoding): unknown;
  resume(): unknown;
  pause(): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  off(event: 'data', listener: (chunk: string) => void): unknown;
}

const isRawInput = (stream: unknown): stream is RawInput => typeof (stream as Partial<RawInput>).setRawMode === 'function';

async function readAll(stdin: Terminal['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Asks on stderr and reads one line with echo off. */
function promptHidden(terminal: Terminal, stdin: RawInput, question: string): Promise<string> {
  // Echo goes off before the question shows, so that nothing typed after it can appear.
  stdin.setRawMode(true);
  terminal.stderr.write(question);
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      terminal.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (ENTER.has(char)) {
          done();
          resolve(typed);
          return;
        }
        if (char === CTRL_C) {
          done();
          reject(new CommandFailure('cancelled'));
          return;
        }
        typed = BACKSPACE.has(char) ? typed.slice(0, -1) : typed + char;
      }
    };
    stdin.setEncoding('utf8');
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** The secret from `env[variable]`, else stdin; `question` is what a terminal shows. */
export async function readSecret(terminal: Terminal, env: NodeJS.ProcessEnv, variable: string, question: string): Promise<string> {
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv.trim();
  const stdin = terminal.stdin;
  if (stdin.isTTY && isRawInput(stdin)) return (await promptHidden(terminal, stdin, question)).trim();
  return (await readAll(stdin)).trim();
}
