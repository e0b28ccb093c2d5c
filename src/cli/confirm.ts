/** Asking before something that cannot be undone (erasing an end user, deleting a guru). */
import { createInterface } from 'node:readline';
import { UsageError } from './failures.js';
import type { Terminal } from './spec.js';

/** Asks on the terminal; only "yes" goes ahead. */
export async function confirmed(terminal: Terminal, question: string): Promise<boolean> {
  terminal.stderr.write(question);
  const lines = createInterface({ input: terminal.stdin, crlfDelay: Infinity });
  try {
    for await (const line of lines) return line.trim().toLowerCase() === 'yes';
    return false;
  } finally {
    lines.close();
  }
}

/** Whether to ask: not with --yes; without it, stdin must be a terminal to answer on, else the command is refused. */
export function mustAsk(terminal: Terminal, yes: boolean, what: string, command: string): boolean {
  if (yes) return false;
  if (!terminal.stdin.isTTY) throw new UsageError(`${what} needs --yes when not run on a terminal (nothing was ${what === 'erasing' ? 'erased' : 'deleted'})`, command);
  return true;
}
