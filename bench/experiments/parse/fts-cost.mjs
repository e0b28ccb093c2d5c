// What indexing the PostgreSQL manual's chunks costs, by tokenizer: chunks copied from an ingested guru.
import console from 'node:console';
import process from 'node:process';
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
const source = new Database('/tmp/qa-s3/postgresql/guru.sqlite', { readonly: true });
const chunks = source.prepare('SELECT source_id, guru_id, position, title, headings, body FROM chunks ORDER BY id').all();
console.log(chunks.length, 'chunks', chunks.reduce((n, c) => n + c.body.length, 0) / 1e6, 'M chars');
for (const tokenize of [process.argv[2] ?? 'porter unicode61 remove_diacritics 2', 'unicode61 remove_diacritics 2', 'none']) {
  rmSync('/tmp/fts-cost.sqlite', { force: true }); rmSync('/tmp/fts-cost.sqlite-wal', { force: true });
  const db = new Database('/tmp/fts-cost.sqlite');
  db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE chunks (id INTEGER PRIMARY KEY, source_id INTEGER, guru_id INTEGER, position INTEGER, title TEXT, headings TEXT, body TEXT);
  CREATE INDEX chunks_source ON chunks(source_id, position); CREATE INDEX chunks_guru ON chunks(guru_id);`);
  if (tokenize !== 'none') db.exec(`CREATE VIRTUAL TABLE chunks_fts USING fts5(title, headings, body, content='chunks', content_rowid='id', tokenize='${tokenize}');
  CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (new.id, new.title, new.headings, new.body); END;`);
  const insert = db.prepare('INSERT INTO chunks (source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, ?, ?)');
  const batch = db.transaction((rows) => { for (const c of rows) insert.run(c.source_id, c.guru_id, c.position, c.title, c.headings, c.body); });
  const cpu = process.cpuUsage(); const t = performance.now();
  for (let i = 0; i < chunks.length; i += 500) batch(chunks.slice(i, i + 500));
  const u = process.cpuUsage(cpu);
  console.log(tokenize.padEnd(40), Math.round(performance.now() - t), 'ms wall', Math.round((u.user + u.system) / 1000), 'ms cpu');
  db.close();
}
