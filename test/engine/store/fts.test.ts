import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Fts5FullText } from '../../../src/engine/search/fts5.js';
import { checkpoint, openDatabase, type Db } from '../../../src/engine/store/database.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';

describe('deleting text from the full-text indexes', () => {
  let dir: string;
  let db: Db;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'guru-fts-'));
    db = openDatabase(dir);
    db.prepare("INSERT INTO gurus (slug, name, date_created) VALUES ('g', 'g', '')").run();
    db.prepare("INSERT INTO data_sources (id, guru_id, type, date_created) VALUES (1, 1, 'TEXT', '')").run();
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const chunk = (body: string) => db.prepare("INSERT INTO chunks (source_id, guru_id, position, title, headings, body) VALUES (1, 1, 0, '', '', ?)").run(body).lastInsertRowid;
  const fileHolds = (text: string) => readFileSync(join(dir, 'guru.sqlite')).includes(Buffer.from(text));

  it('takes the words of deleted chunks out of the index and the file (FullText.forgetDeleted)', async () => {
    for (let i = 0; i < 20; i += 1) chunk(`filler words number ${i}`);
    const id = chunk('the zqxjvkwpl word');
    for (let i = 0; i < 20; i += 1) chunk(`more filler ${i}`);
    await new SqliteSql(db).transaction(async (tx) => {
      await tx.run('DELETE FROM chunks WHERE id = ?', [id]);
      await new Fts5FullText(tx).forgetDeleted();
    });
    checkpoint(db);
    expect(fileHolds('zqxjvkwpl')).toBe(false);
    expect(db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'filler'").get()).toEqual({ n: 40 });
  });

  it('leaves a plain delete of chunks (a reindex) as it was: the words wait for a merge', () => {
    const id = chunk('the zqxjvkwpl word');
    for (let i = 0; i < 5; i += 1) chunk(`filler ${i}`);
    db.prepare('DELETE FROM chunks WHERE id = ?').run(id);
    checkpoint(db);
    expect(fileHolds('zqxjvkwpl')).toBe(true);
  });
});
