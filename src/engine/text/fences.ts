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

/**
 * Columns of leading whitespace, a tab reaching the next multiple of 4. Character codes, not
 * one-character strings: V8 compiles `ch === ' '` for the shared strings of Latin-1 text, and a
 * line of other text (a quote mark, a dash) threw that code away.
 */
export function indentOf(line: string): number {
  let width = 0;
  for (let at = 0; at < line.length; at++) {
    const code = line.charCodeAt(at);
    if (code === 32) width += 1;
    else if (code === 9) width += 4 - (width % 4);
    else break;
  }
  return width;
}

/**
 * openingFence's default: an object of the same shape as `{ anyIndent: true }`, so that reading the
 * option stays one shape to V8 (`{}` was a second one, and the chunker's parsing deoptimized on it).
 */
const INDENT_OF_THREE = { anyIndent: false } as const;

/**
 * The fence the line opens: three or more backticks or tildes after at most
 * three columns of indent (any indent with `anyIndent`, for fences nested in
 * list items). A backtick fence's info string may not hold backticks: that
 * line is inline code.
 */
export function openingFence(line: string, options: { readonly anyIndent?: boolean } = INDENT_OF_THREE): Fence | undefined {
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
  const marker = fence.char.charCodeAt(0);
  for (let at = 0; at < trimmed.length; at++) if (trimmed.charCodeAt(at) !== marker) return false;
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
