/** All of stdin as text; on a terminal, `prompt` first says what to type and how to end it. */
import type { Terminal } from './spec.js';

export async function readStdinText(terminal: Terminal, prompt: string): Promise<string> {
  if (terminal.stdin.isTTY) terminal.stderr.write(`${prompt}\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of terminal.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
