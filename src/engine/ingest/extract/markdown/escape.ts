/**
 * Escapes that keep text from reading as Markdown, as turndown wrote them: backslash, asterisk,
 * backtick, brackets and underscore anywhere; at the start of a text, what would open a list item,
 * a heading, a quote, a fence or an underline.
 */

/** Backslash, asterisk, backtick, brackets, underscore. */
function isEscapedAnywhere(code: number): boolean {
  return code === 92 || code === 42 || code === 96 || code === 91 || code === 93 || code === 95;
}

export function escapeMarkdown(text: string): string {
  let escaped = '';
  let from = 0;
  for (let at = 0; at < text.length; at++) {
    if (!isEscapedAnywhere(text.charCodeAt(at))) continue;
    escaped += `${text.slice(from, at)}\\`;
    from = at;
  }
  return escapeStart(text, escaped === '' ? text : escaped + text.slice(from));
}

/**
 * `escaped` with what `text` starts with escaped too: `-`, `+ `, `=`, `# ` to `###### `, `~~~`, `>`, `1. `.
 * Reads no character past the end of `text`: charCodeAt out of bounds makes V8 throw away the
 * optimized code of the writer's hottest path, and compile it again.
 */
function escapeStart(text: string, escaped: string): string {
  if (text === '') return escaped;
  const first = text.charCodeAt(0);
  if (first === 45 || first === 61 || first === 62) return `\\${escaped}`; // - = >
  if (first === 43) return codeAt(text, 1) === 32 ? `\\${escaped}` : escaped; // '+ '
  if (first === 126) return text.startsWith('~~~') ? `\\${escaped}` : escaped;
  if (first === 35) {
    let hashes = 1;
    while (codeAt(text, hashes) === 35) hashes++;
    return hashes <= 6 && codeAt(text, hashes) === 32 ? `\\${escaped}` : escaped;
  }
  if (first >= 48 && first <= 57) {
    let digits = 1;
    while (isDigit(codeAt(text, digits))) digits++;
    // Digits are never escaped, so they stand at the same place in `escaped`.
    if (codeAt(text, digits) === 46 && codeAt(text, digits + 1) === 32) return `${escaped.slice(0, digits)}\\${escaped.slice(digits)}`;
  }
  return escaped;
}

/** The character code at `at`, or -1 past the end. */
function codeAt(text: string, at: number): number {
  return at < text.length ? text.charCodeAt(at) : -1;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** A link's or image's address: parentheses and angle brackets escaped, in <…> if it holds a space. */
export function linkDestination(href: string): string {
  const escaped = href.replace(/([<>()])/g, '\\$1');
  return escaped.includes(' ') ? `<${escaped}>` : escaped;
}

/** ` "title"` for a link's or image's title attribute, or nothing. */
export function linkTitle(title: string | null): string {
  const cleaned = cleanAttribute(title);
  return cleaned ? ` "${cleaned.replace(/"/g, '\\"')}"` : '';
}

/** An attribute's value with each run of line breaks (and the space after them) made one line break. */
export function cleanAttribute(value: string | null): string {
  return value ? value.replace(/(\n+\s*)+/g, '\n') : '';
}
