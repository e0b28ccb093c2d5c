// Inserting a manual's links as the writer does, with and without parts of migration 13's schema.
import console from 'node:console';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
const from = new Database(process.argv[2], { readonly: true });
const links = from.prepare('SELECT guru_id, source_id, target, text FROM links ORDER BY id').all();
console.log(links.length, 'links');
const variants = {
  full: ['fts', 'wide'],
  noFts: ['wide'],
  narrow: ['fts', 'narrow'],
  bare: [],
};
for (let round = 0; round < 2; round++) for (const [name, parts] of Object.entries(variants)) {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE links (id INTEGER PRIMARY KEY, guru_id INTEGER NOT NULL, source_id INTEGER NOT NULL, target TEXT NOT NULL, text TEXT NOT NULL);
    CREATE INDEX links_source ON links(source_id);`);
  if (parts.includes('wide')) db.exec('CREATE INDEX links_target ON links(guru_id, target, text COLLATE NOCASE, source_id)');
  if (parts.includes('narrow')) db.exec('CREATE INDEX links_target ON links(guru_id, target)');
  if (parts.includes('fts')) db.exec(`CREATE VIRTUAL TABLE links_fts USING fts5(text, content = 'links', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2');
    CREATE TRIGGER links_ai AFTER INSERT ON links BEGIN INSERT INTO links_fts(rowid, text) VALUES (new.id, new.text); END;`);
  const insert = db.prepare('INSERT INTO links (guru_id, source_id, target, text) VALUES (?, ?, ?, ?)');
  const t = performance.now();
  const batch = db.transaction((rows) => { for (const l of rows) insert.run(l.guru_id, l.source_id, l.target, l.text); });
  for (let i = 0; i < links.length; i += 100) batch(links.slice(i, i + 100));
  console.log(round, name.padEnd(8), (performance.now() - t).toFixed(0), 'ms');
}
