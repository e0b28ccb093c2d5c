/**
 * Fenced code blocks, read one line at a time: what the chunker splits around,
 * what extractive answers quote whole, and what citation renumbering leaves alone.
 */

export interface Fence {
  readonly char: '`' | '~';
  /** How many markers opened it: a closing fence needs at least as many. */
  readonly length: number;
  /** The info string (a language, usually); '' for none. */
  readonly info: string;
}

// [^]*: the info string runs to the end of the line, whatever it holds (a model's CRLF lines end in \r).
const OPENING = /^[ \t]*(`{3,}|~{3,})([^]*)$/;

/** Columns of leading whitespace, a tab reaching the next multiple of 4. */
export function indentOf(line: string): number {
  let width = 0;
  for (const ch of line) {
    if (ch === ' ') width += 1;
    else if (ch === '\t') width += 4 - (width % 4);
    else break;
  }
  return width;
}

/**
 * The fence the line opens: three or more backticks or tildes after at most
 * three columns of indent (any indent with `anyIndent`, for fences nested in
 * list items). A backtick fence's info string may not hold backticks: that
 * line is inline code.
 */
export function openingFence(line: string, options: { readonly anyIndent?: boolean } = {}): Fence | undefined {
  const match = OPENING.exec(line);
  const run = match?.[1];
  if (run === undefined) return undefined;
  if (options.anyIndent !== true && indentOf(line) > 3) return undefined;
  const info = (match?.[2] ?? '').trim();
  const char = run[0] === '`' ? '`' : '~';
  if (char === '`' && info.includes('`')) return undefined;
  return { char, length: run.length, info };
}

/**
 * Whether the line closes `fence`. CommonMark allows at most three columns of
 * indent (`strict`, how a renderer reads it); by default any indent closes, as
 * pages converted from HTML indent closing fences their authors meant to close.
 */
export function closesFence(line: string, fence: Fence, options: { readonly strict?: boolean } = {}): boolean {
  if (options.strict === true && indentOf(line) > 3) return false;
  const trimmed = line.trim();
  if (trimmed.length < fence.length) return false;
  for (const ch of trimmed) if (ch !== fence.char) return false;
  return true;
}

/** The backtick fence for a code block holding `text`: three or more, longer than any backtick run in it. */
export function backtickFenceFor(text: string): string {
  let longest = 0;
  for (let at = text.indexOf('`'); at >= 0; at = text.indexOf('`', at)) {
    const start = at;
    while (text.charCodeAt(at) === 96) at++;
    longest = Math.max(longest, at - start);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}
