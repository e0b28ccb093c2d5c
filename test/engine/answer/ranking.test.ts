/**
 * Page choice on a small guru of real text: the page about the question is
 * cited first, not a reference page that holds the question's words in
 * passing, even where the search scores that page's passage higher.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/engine/search/query.js';
import { withSynonyms } from '../../../src/engine/search/synonyms.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { Retriever } from '../../../src/engine/search/retriever.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';

/** The focused page: its heading names the topic, and the words stand together as in the question. */
const SAVEPOINTS = `# Savepoints

## Undoing part of a transaction

A SAVEPOINT marks a point inside an open transaction, under a name of your choice. ROLLBACK TO that name
undoes part of the transaction without rolling back the rest: the changes made after the savepoint are
gone, those made before it are kept, the transaction stays open, and COMMIT writes what is left.
Savepoints may nest: each ROLLBACK TO goes back to the one it names, and those opened after it are gone.

## Releasing a savepoint

RELEASE forgets a savepoint without undoing anything.
`;

/** A catch-all page: one of its many entries holds the question's words often, but apart, in passing. */
const REFERENCE = `# Interface reference

## Error codes

Undo: the undo journal is full. Rollback: a rollback failed. Transaction: no transaction was started.
Part: only a part of the file could be read. Rolling: a rolling checkpoint was interrupted. Back: the
back end cannot be reached, without a retry. Undo again: a second undo of a rollback of a transaction.

## Opening a connection

The open function opens a connection to a database file and returns a handle, or an error code when the file
cannot be opened.

## Closing a connection

The close function finishes the statements of a connection and releases its memory.

## Preparing statements

The prepare function compiles the text of a statement into a program; binding values comes next.
`;

describe('page choice', () => {
  let dir: string;
  let engine: LocalEngine;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-ranking-'));
    engine = await LocalEngine.open({ dataDir: dir });
    await engine.createGuru({ slug: 'docs', name: 'Docs' });
    await engine.createDataSources('docs', {
      text_sources: [
        { name: 'Savepoints', content: SAVEPOINTS },
        { name: 'Interface reference', content: REFERENCE },
      ],
    });
    await engine.whenIdle();
  });

  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const question = 'How do I undo part of a transaction without rolling back all of it?';

  it('the search alone puts the reference page first (the case the ranking must correct)', async () => {
    const db: Db = openDatabase(dir);
    try {
      const retriever = new Retriever(new SqliteSql(db));
      const guruId = (db.prepare('SELECT id FROM gurus').get() as { id: number }).id;
      const [first] = await retriever.search(guruId, withSynonyms(parseQuery(question)), { limit: 10 });
      expect(first?.title).toBe('Interface reference');
    } finally {
      db.close();
    }
  });

  it('cites the page about the question first', async () => {
    const answer = await engine.ask('docs', { question, fetch_existing: false });
    expect(answer.references[0]?.title).toBe('Savepoints');
    expect(answer.content).toContain('ROLLBACK TO');
  });
});
