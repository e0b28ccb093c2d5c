/** Reading what a command is given: a text file, files whole, or all of stdin. */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { CommandFailure } from './failures.js';
import { shellQuote } from './output.js';
import { program } from './program.js';
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

/** A file as read for sending: its name without the folders, and its bytes. */
export interface ReadFile {
  readonly name: string;
  readonly data: Uint8Array;
}

/** Reads every file before anything is sent, so that a bad path sends nothing; `verb` says what for ("upload"). */
export async function readFiles(paths: readonly string[], verb: string): Promise<ReadFile[]> {
  return Promise.all(
    paths.map(async (path) => {
      try {
        if ((await stat(path)).isDirectory()) throw new CommandFailure(`cannot ${verb} ${path}: it is a directory`, `Name the files in it, or add the folder: ${program()} add <slug> ${shellQuote(path)}`);
        return { name: basename(path), data: await readFile(path) };
      } catch (error) {
        if (error instanceof CommandFailure) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
        throw new CommandFailure(`cannot read ${path}: ${reason}`);
      }
    }),
  );
}
