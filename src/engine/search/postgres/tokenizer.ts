/**
 * FTS5's own tokens, for the PostgreSQL full-text index: the words of a text exactly as the
 * engine's SQLite index (`porter unicode61 remove_diacritics 2`, store/migrations.ts) cuts, folds
 * and stems them, so that both stores rank alike. FTS5 itself does the work, in an in-memory
 * SQLite (better-sqlite3 is already the engine's): rows go into a scratch FTS5 table; where each
 * token lies in its column's text comes from highlight() with a query that matches every token (a
 * one-character prefix query per first character of the terms `fts5vocab` lists): FTS5 wraps each
 * token in the marks, one by one. A token's term (folded, stemmed) depends on its text alone, so
 * each text is tokenized once more on its own the first time it is seen, and its term kept:
 * reading every token's term from `fts5vocab`'s instances costs twice as much.
 *
 * A JS port of the tokenizer (unicode61's tables of Unicode 6.1 plus Porter's stemmer) would be
 * faster, but could drift from FTS5 in a corner; this cannot. Not thread-safe across awaits: every
 * method is synchronous.
 */
import Database from 'better-sqlite3';

/** The tokenizer of the engine's chunks_fts and links_fts (store/migrations.ts). */
const FTS5_TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** A token of a column: its term (folded, stemmed) and where it lies in the text (UTF-16 indices, end exclusive). */
export interface Token {
  readonly term: string;
  readonly start: number;
  readonly end: number;
}

/** The three columns of a chunk as FTS5 indexes them; a link's text is a title alone. */
export type Columns = readonly [title: string, headings: string, body: string];

/** Cached query terms (a term's tokens never change). */
const TERM_CACHE_SIZE = 10_000;
/** Cached terms of tokens' texts. */
const TOKEN_CACHE_SIZE = 200_000;

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
  readonly #distinctTerms;
  readonly #highlight;
  readonly #clear: { run(): void };
  readonly #terms = new Map<string, readonly string[]>();
  /** A token's text → its term. */
  readonly #termOf = new Map<string, string>();

  constructor() {
    this.#db = new Database(':memory:');
    // External content, so that emptying the index ('delete-all') does not tokenize the rows again.
    this.#db.exec(`CREATE TABLE scratch_rows (id INTEGER PRIMARY KEY, title TEXT, headings TEXT, body TEXT);
      CREATE VIRTUAL TABLE scratch USING fts5(title, headings, body, content = 'scratch_rows', content_rowid = 'id', tokenize = '${FTS5_TOKENIZER}');
      CREATE VIRTUAL TABLE scratch_tokens USING fts5vocab(scratch, instance);
      CREATE VIRTUAL TABLE scratch_terms USING fts5vocab(scratch, row);`);
    const row = this.#db.prepare<[number, string, string, string]>('INSERT INTO scratch_rows (id, title, headings, body) VALUES (?, ?, ?, ?)');
    const indexed = this.#db.prepare<[number, string, string, string]>('INSERT INTO scratch (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
    this.#insert = {
      run: (...values: [number, string, string, string]) => {
        row.run(...values);
        indexed.run(...values);
      },
    };
    this.#instances = this.#db.prepare<[], { doc: number; col: string; offset: number; term: string }>('SELECT doc, col, offset, term FROM scratch_tokens');
    this.#distinctTerms = this.#db.prepare<[], string>('SELECT term FROM scratch_terms').pluck();
    this.#highlight = this.#db.prepare<[string, string, string, string, string, string, string], { id: number; c0: string; c1: string; c2: string }>(
      `SELECT rowid AS id, highlight(scratch, 0, ?, ?) AS c0, highlight(scratch, 1, ?, ?) AS c1, highlight(scratch, 2, ?, ?) AS c2
       FROM scratch WHERE scratch MATCH ?`,
    );
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
    const tokens: Token[][][] = rows.map(() => [[], [], []]);
    if (rows.length === 0) return tokens;
    try {
      this.#fill(rows);
      const firsts = new Set(this.#distinctTerms.all().map((term) => String.fromCodePoint(term.codePointAt(0)!)));
      if (firsts.size === 0) return tokens;
      const [open, close] = marksFor(rows.flat());
      const everyToken = [...firsts].map((first) => `${quoted(first)}*`).join(' OR ');
      const spans: [number, number][][][] = rows.map(() => [[], [], []]);
      for (const { id, c0, c1, c2 } of this.#highlight.all(open, close, open, close, open, close, everyToken)) {
        spans[id - 1] = [c0, c1, c2].map((text) => spansOf(text, open, close));
      }
      // A token's term depends on its text alone (a run of token characters, folded and stemmed):
      // the texts not seen before are tokenized once, one a row, and their terms kept.
      const unseen = new Set<string>();
      spans.forEach((columns, row) =>
        columns.forEach((ofColumn, column) => {
          for (const [start, end] of ofColumn) {
            const text = rows[row]![column]!.slice(start, end);
            if (!this.#termOf.has(text)) unseen.add(text);
          }
        }),
      );
      this.#learn([...unseen]);
      spans.forEach((columns, row) =>
        columns.forEach((ofColumn, column) => {
          const text = rows[row]![column]!;
          tokens[row]![column] = ofColumn.map(([start, end]) => ({ term: this.#termOf.get(text.slice(start, end))!, start, end }));
        }),
      );
      return tokens;
    } finally {
      this.#clear.run();
    }
  }

  #fill(rows: readonly Columns[]): void {
    this.#clear.run();
    this.#db.transaction(() => rows.forEach((row, index) => this.#insert.run(index + 1, ...row)))();
  }

  /** Tokenizes each text (one token's text) and keeps its term. */
  #learn(texts: readonly string[]): void {
    if (texts.length === 0) return;
    if (this.#termOf.size + texts.length > TOKEN_CACHE_SIZE) this.#termOf.clear();
    this.#fill(texts.map((text) => [text, '', '']));
    const terms: (string | undefined)[] = [];
    for (const { doc, offset, term } of this.#instances.iterate()) {
      if (offset !== 0 || terms[doc - 1] !== undefined) throw new Error(`FTS5 cut the token "${texts[doc - 1]}" in several`);
      terms[doc - 1] = term;
    }
    texts.forEach((text, index) => {
      const term = terms[index];
      if (term === undefined) throw new Error(`FTS5 made no token of "${text}"`);
      this.#termOf.set(text, term);
    });
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
