// FTS5 indexing cost of the manual's chunks by transaction size and merge settings.
import console from 'node:console';
import process from 'node:process';
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
const source = new Database('/tmp/qa-s3/postgresql/guru.sqlite', { readonly: true });
const chunks = source.prepare('SELECT source_id, guru_id, position, title, headings, body FROM chunks ORDER BY id').all();
const configs = [
  { batch: 500 }, { batch: 90 }, { batch: 90, automerge: 0 }, { batch: 90, automerge: 8 }, { batch: 90, automerge: 16, crisismerge: 64 },
  { batch: 90, pgsz: 4050 }, { batch: 90, automerge: 0, after: 'optimize' },
];
for (const config of configs) {
  rmSync('/tmp/fts-cost.sqlite', { force: true }); rmSync('/tmp/fts-cost.sqlite-wal', { force: true });
  const db = new Database('/tmp/fts-cost.sqlite');
  db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE chunks (id INTEGER PRIMARY KEY, source_id INTEGER, guru_id INTEGER, position INTEGER, title TEXT, headings TEXT, body TEXT);
  CREATE INDEX chunks_source ON chunks(source_id, position); CREATE INDEX chunks_guru ON chunks(guru_id);
  CREATE VIRTUAL TABLE chunks_fts USING fts5(title, headings, body, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
  CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (new.id, new.title, new.headings, new.body); END;`);
  for (const key of ['automerge', 'crisismerge', 'pgsz']) if (config[key] !== undefined) db.prepare(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES (?, ?)`).run(key, config[key]);
  const insert = db.prepare('INSERT INTO chunks (source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, ?, ?)');
  const batch = db.transaction((rows) => { for (const c of rows) insert.run(c.source_id, c.guru_id, c.position, c.title, c.headings, c.body); });
  const cpu = process.cpuUsage(); const t = performance.now();
  for (let i = 0; i < chunks.length; i += config.batch) batch(chunks.slice(i, i + config.batch));
  if (config.after) db.prepare(`INSERT INTO chunks_fts(chunks_fts) VALUES (?)`).run(config.after);
  const u = process.cpuUsage(cpu);
  const segs = db.prepare("SELECT count(*) n FROM chunks_fts_data").get().n;
  const q = db.prepare("SELECT count(*) n FROM chunks_fts WHERE chunks_fts MATCH 'index OR vacuum OR table'");
  const qt = performance.now(); for (let k = 0; k < 20; k++) q.get(); 
  console.log(JSON.stringify(config).padEnd(50), Math.round(performance.now() - t), 'ms wall', Math.round((u.user + u.system) / 1000), 'ms cpu', segs, 'data rows', ((performance.now() - qt) / 20).toFixed(2), 'ms/query');
  db.close();
}
