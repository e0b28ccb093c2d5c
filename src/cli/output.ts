/** Small writers shared by the commands. */
import type { OutputStream } from './spec.js';
import { Controlled, terminalSafe, writeControlled } from './terminal-text.js';

/** Text, and styled text (rendered Markdown), each followed by a newline. */
export function writeLines(stream: OutputStream, ...lines: (string | Controlled)[]): void {
  writeText(stream, ...lines.flatMap((line) => [line, '\n']));
}

/** Text and styled text in order; consecutive text in one write. */
export function writeText(stream: OutputStream, ...parts: (string | Controlled)[]): void {
  let text = '';
  for (const part of parts) {
    if (!(part instanceof Controlled)) {
      text += part;
      continue;
    }
    if (text !== '') stream.write(text);
    text = '';
    writeControlled(stream, part);
  }
  if (text !== '') stream.write(text);
}

/**
 * Controls JSON.stringify leaves as they are: DEL, C1 controls (U+009B is a CSI to some
 * terminals), bidirectional embeddings, overrides and isolates. Escaped, the JSON means the same
 * and carries none of them to a terminal (the output stream would otherwise strip them).
 */
const UNESCAPED_CONTROLS = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

export function writeJson(stream: OutputStream, value: unknown): void {
  const json = JSON.stringify(value, null, 2).replace(UNESCAPED_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  stream.write(`${json}\n`);
}

/** Rows as left-aligned columns separated by two spaces, measured as they will show (made safe). */
export function columns(rawRows: readonly (readonly string[])[]): string[] {
  const rows = rawRows.map((row) => row.map(terminalSafe));
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** Quotes an argument for a shell command line the person can copy. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
