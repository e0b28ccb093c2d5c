/**
 * Deleting text from the full-text indexes for good. FTS5 records a deletion as a tombstone and
 * leaves the words in their old segments (and in the file) until a merge rewrites them. After
 * sources or gurus are deleted, the indexes are merged into one segment each ('optimize'), which
 * drops the deleted entries; the pages freed are overwritten (secure_delete, database.ts).
 *
 * FTS5's own `secure-delete` option was measured too and is slower: on 300 sources of 40 sections
 * (16 MB), deleting 250 of them at once took 41 s with it against 0.15 s with the merge, and with
 * it left on, reindexing the 300 took 7.5 s against 0.6 to 1.7 s. The merge costs one rewrite of
 * the indexes per deletion, whatever the number of ids: 56 ms on that database.
 */
import type { Db } from './database.js';

const INDEXES = ['chunks_fts', 'links_fts'] as const;

/** Runs `remove` (inside the caller's write transaction), then merges the indexes so that its words leave them. */
export function deletingText<T>(db: Db, remove: () => T): T {
  const result = remove();
  for (const index of INDEXES) db.exec(`INSERT INTO ${index}(${index}) VALUES ('optimize')`);
  return result;
}
