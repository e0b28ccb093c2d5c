/**
 * FTS5's own tokens, for the PostgreSQL full-text index: the words of a text exactly as the
 * engine's SQLite index (`porter unicode61 remove_diacritics 2`, store/migrations.ts) cuts, folds
 * and stems them, so that both stores rank alike. FTS5 itself does the work, in an in-memory
 * SQLite (better-sqlite3 is already the engine's): rows go into a scratch FTS5 table, their
 * tokens come back from `fts5vocab` (term, column, position), and where each token lies in its
 * column's text from highlight() with a query that matches every token (a one-character prefix
 * query per first character of the terms): FTS5 wraps each token in the marks, one by one.
 *
 * A JS port of the tokenizer (unicode61's tables of Unicode 6.1 plus Porter's stemmer) would be
 * faster, but could drift from FTS5 in a corner; this cannot. Not thread-safe across awaits: every
 * method is synchronous.
 */
import Database from 'better-sqlite3';

/** The tokenizer of the engine's chunks_fts and links_fts (store/migrations.ts). */
export const FTS5_TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** A token of a column: its term (folded, stemmed) and where it lies in the text (UTF-16 indices, end exclusive). */
export interface Token {
  readonly term: string;
  readonly start: number;
  readonly end: number;
}

/** The three columns of a chunk as FTS5 indexes them; a link's text is a title alone. */
export type Columns = readonly [title: string, headings: string, body: string];

const COLUMN_INDEX: Readonly<Record<string, number>> = { title: 0, headings: 1, body: 2 };

/** Cached query terms (a term's tokens never change). */
const TERM_CACHE_SIZE = 10_000;

/** Two characters that occur in none of the texts, to mark tokens with. */
function marksFor(texts: readonly string[]): [string, string] {
  const marks: string[] = [];
  for (let code = 1; marks.length < 2; code += 1) {
    const mark = String.fromCodePoint(code);
    if (!texts.some((text) => text.includes(mark))) marks.push(mark);
  }
  return marks as [string, string];
}

/** A quoted FTS5 string. */
const quoted = (text: string): string => `"${text.replace(/"/g, '""')}"`;

export class Fts5Tokenizer {
  readonly #db: Database.Database;
  readonly #insert: { run(...values: [number, string, string, string]): void };
  readonly #instances;
  readonly #clear: { run(): void };
  readonly #terms = new Map<string, readonly string[]>();

  constructor() {
    this.#db = new Database(':memory:');
    // External content, so that emptying the index ('delete-all') does not tokenize the rows again.
    this.#db.exec(`CREATE TABLE scratch_rows (id INTEGER PRIMARY KEY, title TEXT, headings TEXT, body TEXT);
      CREATE VIRTUAL TABLE scratch USING fts5(title, headings, body, content = 'scratch_rows', content_rowid = 'id', tokenize = '${FTS5_TOKENIZER}');
      CREATE VIRTUAL TABLE scratch_tokens USING fts5vocab(scratch, instance);`);
    const row = this.#db.prepare<[number, string, string, string]>('INSERT INTO scratch_rows (id, title, headings, body) VALUES (?, ?, ?, ?)');
    const indexed = this.#db.prepare<[number, string, string, string]>('INSERT INTO scratch (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
    this.#insert = {
      run: (...values: [number, string, string, string]) => {
        row.run(...values);
        indexed.run(...values);
      },
    };
    this.#instances = this.#db.prepare<[], { doc: number; col: string; offset: number; term: string }>('SELECT doc, col, offset, term FROM scratch_tokens');
    const emptyIndex = this.#db.prepare("INSERT INTO scratch (scratch) VALUES ('delete-all')");
    const emptyRows = this.#db.prepare('DELETE FROM scratch_rows');
    this.#clear = {
      run: () => {
        emptyIndex.run();
        emptyRows.run();
      },
    };
  }

  /**
   * The tokens of each row's columns, in order: `tokenize(rows)[row][column]`. Many rows at once
   * cost less than one at a time (one pass of each statement).
   */
  tokenize(rows: readonly Columns[]): Token[][][] {
    if (rows.length === 0) return [];
    const terms: string[][][] = rows.map(() => [[], [], []]);
    const firsts = new Set<string>();
    try {
      this.#db.transaction(() => rows.forEach((row, index) => this.#insert.run(index + 1, ...row)))();
      for (const { doc, col, offset, term } of this.#instances.iterate()) {
        terms[doc - 1]![COLUMN_INDEX[col]!]![offset] = term;
        firsts.add(String.fromCodePoint(term.codePointAt(0)!));
      }
      if (firsts.size === 0) return rows.map(() => [[], [], []]);
      const [open, close] = marksFor(rows.flat());
      const everyToken = [...firsts].map((first) => `${quoted(first)}*`).join(' OR ');
      const marked = this.#db
        .prepare<[string, string, string, string, string, string, string], { id: number; c0: string; c1: string; c2: string }>(
          `SELECT rowid AS id, highlight(scratch, 0, ?, ?) AS c0, highlight(scratch, 1, ?, ?) AS c1, highlight(scratch, 2, ?, ?) AS c2
           FROM scratch WHERE scratch MATCH ?`,
        )
        .all(open, close, open, close, open, close, everyToken);
      const tokens: Token[][][] = rows.map(() => [[], [], []]);
      for (const { id, c0, c1, c2 } of marked) {
        [c0, c1, c2].forEach((text, column) => {
          const spans = spansOf(text, open, close);
          const ofColumn = terms[id - 1]![column]!;
          if (spans.length !== ofColumn.length) {
            throw new Error(`FTS5 marked ${spans.length} tokens of a column that has ${ofColumn.length}`);
          }
          tokens[id - 1]![column] = spans.map(([start, end], position) => ({ term: ofColumn[position]!, start, end }));
        });
      }
      return tokens;
    } finally {
      this.#clear.run();
    }
  }

  /** The terms FTS5 makes of a query phrase (usually one; none for text without a word). */
  terms(phrase: string): readonly string[] {
    let terms = this.#terms.get(phrase);
    if (terms === undefined) {
      terms = (this.tokenize([[phrase, '', '']])[0]?.[0] ?? []).map((token) => token.term);
      if (this.#terms.size >= TERM_CACHE_SIZE) this.#terms.clear();
      this.#terms.set(phrase, terms);
    }
    return terms;
  }

  close(): void {
    this.#db.close();
  }
}

/** Where the marked parts of a highlighted text lie in the text without the marks. */
function spansOf(text: string, open: string, close: string): [number, number][] {
  const spans: [number, number][] = [];
  let removed = 0;
  let start = -1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === open) {
      start = i - removed;
      removed += 1;
    } else if (c === close) {
      spans.push([start, i - removed]);
      removed += 1;
    }
  }
  return spans;
}
