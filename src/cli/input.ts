/** Reading what a command is given: a text file, or all of stdin. */
import { readFile } from 'node:fs/promises';
import { CommandFailure } from './failures.js';
import type { Terminal } from './spec.js';

/** All of stdin as text; on a terminal, `prompt` first says what to type and how to end it. */
export async function readStdin(terminal: Terminal, prompt: string): Promise<string> {
  if (terminal.stdin.isTTY) terminal.stderr.write(`${prompt}\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of terminal.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** A text file's content, or a failure saying why it cannot be read. */
export async function readTextFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new CommandFailure(`cannot read ${file}: ${reason}`);
  }
}
