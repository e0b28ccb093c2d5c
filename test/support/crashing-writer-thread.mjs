// The real writer thread (dist/bin/writer-thread.js) that crashes once, as a thread dies of a bug
// or of its memory: the first time it runs in a data directory, it exits as soon as a source has
// been committed, with the rest of the queue under way.
import Database from 'better-sqlite3';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { URL } from 'node:url';
import { workerData } from 'node:worker_threads';

await import(new URL('../../dist/bin/writer-thread.js', import.meta.url).href);

const marker = join(workerData.dataDir, 'writer-crashed');
if (!existsSync(marker)) {
  const db = new Database(join(workerData.dataDir, 'guru.sqlite'), { readonly: true });
  const committed = db.prepare("SELECT count(*) AS n FROM data_sources WHERE status = 'SUCCESS'");
  setInterval(() => {
    if (committed.get().n === 0) return;
    writeFileSync(marker, '');
    process.exit(70);
  }, 2);
}
