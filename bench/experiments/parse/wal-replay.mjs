// Replays a kept guru's ingestion writes (the sources' content, chunks and links, in batches of
// about 64 KB of Markdown as the processor commits them) into a fresh database of the engine's
// schema, and reports how many bytes the write-ahead log received: what each part costs in writes.
// Usage: node wal-replay.mjs GURU_SQLITE [variant…]; variants: all, no-chunks-fts, no-links-fts,
// no-secure-delete, no-content, savepoints (each source in a savepoint of its own, as the
// processor does), savepoints-memory (and temp_store = MEMORY).
import console from 'node:console';
import process from 'node:process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';

const { openDatabase } = await import('../../../dist/engine/store/database.js');
const from = new Database(process.argv[2], { readonly: true });
const sources = from.prepare('SELECT id, url, title, content FROM data_sources ORDER BY id').all();
const chunksOf = from.prepare('SELECT position, title, headings, body FROM chunks WHERE source_id = ? ORDER BY position');
const linksOf = from.prepare('SELECT target, text FROM links WHERE source_id = ? ORDER BY id');
const variants = process.argv.length > 3 ? process.argv.slice(3) : ['all', 'no-chunks-fts', 'no-links-fts', 'no-secure-delete', 'no-content'];

for (const variant of variants) {
  const dir = mkdtempSync(join(tmpdir(), 'wal-replay-'));
  const db = openDatabase(dir);
  db.pragma('wal_autocheckpoint = 0');
  if (variant.includes('memory')) db.pragma('temp_store = MEMORY');
  if (variant === 'no-secure-delete') db.pragma('secure_delete = OFF');
  if (variant === 'no-chunks-fts') db.exec('DROP TRIGGER chunks_ai; DROP TRIGGER chunks_ad;');
  if (variant === 'no-links-fts') db.exec('DROP TRIGGER links_ai; DROP TRIGGER links_ad;');
  db.prepare("INSERT INTO gurus (slug, name, date_created) VALUES ('g', 'g', '2026-01-01')").run();
  const insertSource = db.prepare("INSERT INTO data_sources (id, guru_id, type, url, date_created) VALUES (?, 1, 'WEBSITE', ?, '2026-01-01')");
  db.transaction(() => { for (const s of sources) insertSource.run(s.id, s.url); })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const store = db.prepare("UPDATE data_sources SET title = ?, content = ?, status = 'SUCCESS' WHERE id = ?");
  const insertChunk = db.prepare('INSERT INTO chunks (source_id, guru_id, position, title, headings, body) VALUES (?, 1, ?, ?, ?, ?)');
  const insertLink = db.prepare('INSERT INTO links (guru_id, source_id, target, text) VALUES (1, ?, ?, ?)');
  const storeOne = (s) => {
    store.run(s.title, variant === 'no-content' ? '' : s.content, s.id);
    for (const c of chunksOf.all(s.id)) insertChunk.run(s.id, c.position, c.title, c.headings, c.body);
    for (const l of linksOf.all(s.id)) insertLink.run(s.id, l.target, l.text);
  };
  // As the processor stores a batch: each source in a savepoint of its own (a nested transaction).
  const savepointed = db.transaction(storeOne);
  const commit = db.transaction((batch) => {
    for (const s of batch) (variant.includes('savepoints') ? savepointed : storeOne)(s);
  });
  const written = () => Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))[1]);
  const writtenBefore = written();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let batch = [];
  let characters = 0;
  let commits = 0;
  for (const s of sources) {
    batch.push(s);
    characters += s.content?.length ?? 0;
    if (batch.length === 16 || characters >= 64 * 1024) { commit(batch); commits++; batch = []; characters = 0; }
  }
  if (batch.length > 0) { commit(batch); commits++; }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const bytes = written() - writtenBefore;
  const wal = statSync(join(dir, 'guru.sqlite-wal')).size;
  db.close();
  const size = statSync(join(dir, 'guru.sqlite')).size;
  console.log(variant.padEnd(18), `${commits} commits, WAL ${(wal / 1e6).toFixed(1)} MB, database ${(size / 1e6).toFixed(1)} MB, all writes ${(bytes / 1e6).toFixed(1)} MB, ${ms.toFixed(0)} ms, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (system ${(cpu.system / 1e6).toFixed(2)})`);
  rmSync(dir, { recursive: true, force: true });
}
