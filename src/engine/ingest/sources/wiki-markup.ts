/**
 * Jira wiki markup (the text format of `description` and comment `body` in
 * Jira's REST API v2) to Markdown: headings, emphasis, monospace, code and
 * noformat blocks, quotes and panels, lists, tables, links and images.
 */
import { backtickFenceFor } from '../../text/fences.js';

export interface WikiMarkupOptions {
  /** Added to every heading level (capped at 6), so `h1.` nests under the caller's own headings. */
  readonly headingOffset?: number;
}

type BlockKind = 'heading' | 'label' | 'paragraph' | 'list' | 'table' | 'code' | 'rule' | 'quote';

interface Line {
  readonly depth: number; // blockquote nesting
  readonly text: string; // '' is a blank line
  readonly hard?: boolean; // a blank that must end the quote around it
}

const BLOCK_TAG = /\{(code|noformat|quote|panel|info|note|warning|tip)(?::([^}]*))?\}/g;
const CONTAINER_LABEL: Readonly<Record<string, string>> = { info: 'Info', note: 'Note', warning: 'Warning', tip: 'Tip' };

export function wikiMarkupToMarkdown(markup: string, options: WikiMarkupOptions = {}): string {
  const writer = new MarkdownWriter(options.headingOffset ?? 0);
  const text = markup.replace(/\r\n?/g, '\n');
  const containers: string[] = [];
  let position = 0;
  for (const match of text.matchAll(BLOCK_TAG)) {
    if (match.index < position) continue; // inside a code block already consumed
    writer.text(text.slice(position, match.index), containers.length);
    const [tag, name = '', parameters] = match;
    position = match.index + tag.length;
    if (name === 'code' || name === 'noformat') {
      const closing = `{${name}}`;
      const end = text.indexOf(closing, position);
      const body = end === -1 ? text.slice(position) : text.slice(position, end);
      writer.code(body, name === 'code' ? codeLanguage(parameters) : '', containers.length);
      position = end === -1 ? text.length : end + closing.length;
      continue;
    }
    const open = containers.lastIndexOf(name);
    if (open !== -1) {
      containers.length = open;
      writer.hardBreak();
      continue;
    }
    writer.hardBreak();
    containers.push(name);
    const title = parameter(parameters, 'title');
    const label = [CONTAINER_LABEL[name], title].filter(Boolean).join(': ');
    if (label) writer.block('label', `**${inline(label)}**`, containers.length);
  }
  writer.text(text.slice(position), containers.length);
  return writer.render();
}

/** `{code:java}`, `{code:title=A.java|borderStyle=solid}`, `{code:language=sql}`. */
function codeLanguage(parameters: string | undefined): string {
  if (!parameters) return '';
  const explicit = parameter(parameters, 'language');
  if (explicit) return explicit.toLowerCase();
  const bare = parameters.split('|').find((part) => part && !part.includes('='));
  return bare && /^[\w+#-]+$/.test(bare) ? bare.toLowerCase() : '';
}

function parameter(parameters: string | undefined, name: string): string | undefined {
  for (const part of parameters?.split('|') ?? []) {
    const [key, ...value] = part.split('=');
    if (key?.trim() === name) return value.join('=').trim();
  }
  return undefined;
}

class MarkdownWriter {
  readonly #lines: Line[] = [];
  readonly #headingOffset: number;
  #lastKind: BlockKind | undefined;
  #table: string[][] = [];
  #tableHeader = false;
  #tableDepth = 0;

  constructor(headingOffset: number) {
    this.#headingOffset = headingOffset;
  }

  text(segment: string, depth: number): void {
    for (const raw of segment.split('\n')) this.#line(raw, depth);
    this.#flushTable();
  }

  #line(raw: string, depth: number): void {
    const line = raw.trim();
    const row = /^\|\|?/.test(line);
    if (!row) this.#flushTable();
    if (!line) {
      this.#blank(depth);
      return;
    }
    if (row) {
      if (this.#table.length === 0) {
        this.#tableHeader = line.startsWith('||');
        this.#tableDepth = depth;
      }
      this.#table.push(splitCells(line).map((cell) => inline(cell).replace(/\|/g, '\\|')));
      return;
    }
    const heading = /^h([1-6])\.\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, Number(heading[1]) + this.#headingOffset);
      this.block('heading', `${'#'.repeat(level)} ${inline(heading[2] ?? '')}`, depth);
      return;
    }
    const quote = /^bq\.\s+(.*)$/.exec(line);
    if (quote) {
      this.block('quote', `> ${inline(quote[1] ?? '')}`, depth);
      return;
    }
    if (/^-{4,}$/.test(line)) {
      this.block('rule', '---', depth);
      return;
    }
    const item = /^([*#]+|-)\s+(.*)$/.exec(line);
    if (item) {
      const markers = item[1] ?? '-';
      this.block('list', `${listIndent(markers)}${markers.endsWith('#') ? '1.' : '-'} ${inline(item[2] ?? '')}`, depth);
      return;
    }
    this.block('paragraph', inline(line), depth);
  }

  block(kind: BlockKind, text: string, depth: number): void {
    const previous = this.#lines.at(-1);
    const continues = kind === this.#lastKind && (kind === 'paragraph' || kind === 'list' || kind === 'table' || kind === 'quote');
    if (previous && previous.text !== '' && !continues) this.#lines.push({ depth, text: '' });
    this.#lines.push({ depth, text });
    this.#lastKind = kind;
  }

  code(body: string, language: string, depth: number): void {
    this.#flushTable();
    const content = body.replace(/^[ \t]*\n/, '').replace(/\n[ \t]*$/, '');
    const fence = backtickFenceFor(content);
    this.block('code', `${fence}${language}`, depth);
    for (const line of content.split('\n')) this.#lines.push({ depth, text: line });
    this.#lines.push({ depth, text: fence });
  }

  /** Ends the current block and any quote around it. */
  hardBreak(): void {
    this.#flushTable();
    this.#lines.push({ depth: 0, text: '', hard: true });
    this.#lastKind = undefined;
  }

  #blank(depth: number): void {
    this.#lines.push({ depth, text: '' });
    this.#lastKind = undefined;
  }

  #flushTable(): void {
    if (this.#table.length === 0) return;
    const rows = this.#table;
    this.#table = [];
    const width = Math.max(...rows.map((cells) => cells.length));
    const format = (cells: readonly string[]): string =>
      `| ${Array.from({ length: width }, (_, index) => cells[index] ?? '').join(' | ')} |`;
    // GFM needs a header row: a table without one is given an empty header.
    const header = this.#tableHeader ? (rows.shift() ?? []) : [];
    this.block('table', format(header), this.#tableDepth);
    this.block('table', `| ${Array.from({ length: width }, () => '---').join(' | ')} |`, this.#tableDepth);
    for (const cells of rows) this.block('table', format(cells), this.#tableDepth);
  }

  render(): string {
    this.#flushTable();
    const lines: Line[] = [];
    for (const line of this.#lines) {
      const previous = lines.at(-1);
      if (line.text === '' && (lines.length === 0 || previous?.text === '')) {
        if (previous && line.hard) lines[lines.length - 1] = line;
        continue;
      }
      lines.push(line);
    }
    while (lines.at(-1)?.text === '') lines.pop();
    return lines
      .map(({ depth, text }) => (depth > 0 ? `${'> '.repeat(depth)}${text}`.trimEnd() : text))
      .join('\n');
  }
}

function listIndent(markers: string): string {
  let indent = '';
  for (const marker of markers.slice(0, -1)) indent += marker === '#' ? '   ' : '  ';
  return indent;
}

/** Cells of a `||h||h||` or `|c|c|` row; pipes inside `[link|url]` and `{{mono}}` do not split. */
function splitCells(row: string): string[] {
  const cells: string[] = [];
  let current = '';
  let brackets = 0;
  let braces = 0;
  const body = row.replace(/^\|\|?/, '').replace(/\|\|?$/, '');
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === '\\' && body[index + 1] === '|') {
      current += '\\|';
      index++;
      continue;
    }
    if (char === '[') brackets++;
    else if (char === ']') brackets = Math.max(0, brackets - 1);
    else if (char === '{') braces++;
    else if (char === '}') braces = Math.max(0, braces - 1);
    if (char === '|' && brackets === 0 && braces === 0) {
      cells.push(current.trim());
      current = '';
      if (body[index + 1] === '|') index++;
      continue;
    }
    current += char;
  }
  cells.push(current.trim());
  return cells;
}

const IMAGE = /!([^\s!|]+\.(?:png|jpe?g|gif|svg|bmp|webp)|https?:\/\/[^\s!|]+)(?:\|[^!\n]*)?!/gi;
const LINK = /\[([^[\]\n]+)\]/g;
const URL_LIKE = /^(?:https?|ftp|mailto|file):/i;

/** Inline markup of one line: protected spans (monospace, links, escapes) first, then emphasis. */
function inline(text: string): string {
  const held: string[] = [];
  const hold = (markdown: string): string => `\uE000${held.push(markdown) - 1}\uE001`;
  let out = text
    .replace(/\{\{(.+?)\}\}/g, (_, code: string) => hold(codeSpan(code)))
    .replace(/\\\\/g, () => hold('  \n'))
    .replace(/\\([^\s\w])/g, (_, char: string) => hold(char))
    .replace(/\{(?:color|anchor)(?::[^}]*)?\}/g, '')
    .replace(IMAGE, (_, source: string) => hold(`![${source.split('/').pop() ?? source}](${source})`))
    .replace(LINK, (whole, inner: string) => {
      const link = linkMarkdown(inner);
      return link === undefined ? whole : hold(link);
    });
  out = out
    .replace(/(^|[^\p{L}\p{N}*])\*(?=\S)([^*\n]*?\S)\*(?![\p{L}\p{N}*])/gu, '$1**$2**')
    .replace(/(^|[^\p{L}\p{N}_])_(?=\S)([^_\n]*?\S)_(?![\p{L}\p{N}_])/gu, '$1_$2_')
    .replace(/(^|[\s(])-(?=[^\s-])([^-\n]*?[^\s-])-(?=$|[\s).,;:!?])/g, '$1~~$2~~')
    .replace(/(^|[^\p{L}\p{N}+])\+(?=\S)([^+\n]*?\S)\+(?![\p{L}\p{N}+])/gu, '$1$2')
    .replace(/\?\?(?=\S)(.*?\S)\?\?/g, '_$1_')
    .replace(/(^|[^\p{L}\p{N}^])\^(?=\S)([^^\n]*?\S)\^(?![\p{L}\p{N}^])/gu, '$1$2')
    .replace(/(^|[^\p{L}\p{N}~])~(?=\S)([^~\n]*?\S)~(?![\p{L}\p{N}~])/gu, '$1$2');
  // Held spans may themselves hold earlier ones (a link whose text is monospace).
  const restore = (value: string): string => value.replace(/\uE000(\d+)\uE001/g, (_, index: string) => restore(held[Number(index)] ?? ''));
  return restore(out);
}

function codeSpan(code: string): string {
  const longestRun = Math.max(0, ...[...code.matchAll(/`+/g)].map((run) => run[0].length));
  const ticks = '`'.repeat(longestRun + 1);
  const padded = code.startsWith('`') || code.endsWith('`') ? ` ${code} ` : code;
  return `${ticks}${padded}${ticks}`;
}

/** `[text|url]`, `[url]`, `[~user]`, `[^attachment]`; undefined for brackets that are not a link. */
function linkMarkdown(inner: string): string | undefined {
  if (inner.startsWith('~')) return `@${inner.slice(1).replace(/^accountid:/, '')}`;
  if (inner.startsWith('^')) return inner.slice(1);
  const parts = inner.split('|');
  if (parts.length >= 2) {
    const target = (parts[1] ?? '').trim();
    const label = inline((parts[0] ?? '').trim());
    if (URL_LIKE.test(target)) return `[${label || target}](${target})`;
    if (target.startsWith('~')) return `${label} (@${target.slice(1).replace(/^accountid:/, '')})`;
    return label || target;
  }
  const target = inner.trim();
  if (URL_LIKE.test(target)) return `<${target}>`;
  if (target.startsWith('#')) return target.slice(1);
  return undefined;
}
