/** Small writers shared by the commands. */
import type { OutputStream } from './spec.js';

export function writeLines(stream: OutputStream, ...lines: string[]): void {
  stream.write(lines.map((line) => `${line}\n`).join(''));
}

export function writeJson(stream: OutputStream, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Rows as left-aligned columns separated by two spaces. */
export function columns(rows: readonly (readonly string[])[]): string[] {
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
