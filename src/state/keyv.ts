/**
 * The one place that creates Keyv instances. Short-lived shared state (rate-limit
 * windows, answer-progress lines, caches) lives in `<dataDir>/state.sqlite`, one
 * namespace per use, so that several server instances on one data directory share
 * it and a multi-instance deployment can swap the store for Redis here alone.
 */
import { join } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { ensureDataDir, preparePrivateDatabase } from '../data-dir.js';
import { createLogger, describeError, type Logger } from '../log.js';

/** How long a connection waits for another instance's write lock before failing. */
const BUSY_TIMEOUT_MS = 5_000;
/** Expired rows are only removed on read; sweep the ones nobody reads again. */
const CLEAR_EXPIRED_INTERVAL_MS = 10 * 60_000;

/**
 * Opens the namespace `namespace` of the state store in `dataDir`. Store failures
 * are logged, and the operation reads as a miss (`get` gives undefined, `set`
 * false): state here is disposable, and an unheard Keyv error event would
 * otherwise throw, from a timer even.
 */
export function openStateStore(dataDir: string, namespace: string, logger: Logger = createLogger('warn')): Keyv {
  ensureDataDir(dataDir);
  const path = join(dataDir, 'state.sqlite');
  // The store opens the file itself; created (or narrowed) first, it and its -wal and -shm stay private.
  preparePrivateDatabase(path);
  const store = new KeyvSqlite({
    uri: `sqlite://${path}`,
    // Pinned: auto-detection would pick the experimental node:sqlite on newer Node.
    driver: 'better-sqlite3',
    wal: true,
    busyTimeout: BUSY_TIMEOUT_MS,
    clearExpiredInterval: CLEAR_EXPIRED_INTERVAL_MS,
  });
  const keyv = new Keyv({ store, namespace });
  keyv.on('error', (error: unknown) => {
    logger.warn('state store failed', { namespace, error: describeError(error) });
  });
  return keyv;
}
