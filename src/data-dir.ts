/**
 * The data directory holds conversations, end-user ids and integration keys: what guru-mcp
 * creates there is its user's alone. A data directory created here is 0700 and database files
 * are created 0600 (SQLite gives a database's -wal and -shm files the mode of the database
 * file); database files an older version left readable by others are narrowed, when they are ours.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PRIVATE_DIRECTORY_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;
/** The database file and the files SQLite keeps beside it in WAL mode. */
const DATABASE_FILE_SUFFIXES = ['', '-wal', '-shm'] as const;

/** Creates the data directory (and any missing parents) readable by this user only; an existing one is left as it is. */
export function ensureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
}

/**
 * Makes the SQLite database at `path` private before it is opened: creates it empty with mode
 * 0600 when it does not exist (SQLite takes an empty file for a new database), else takes the
 * group's and others' permissions away from it and its -wal and -shm files.
 */
export function preparePrivateDatabase(path: string): void {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  for (const suffix of DATABASE_FILE_SUFFIXES) narrowToOwner(`${path}${suffix}`);
}

/** The file of the data directory's secret. A copy of the databases without it reveals no token and no end user's id. */
export const SECRET_KEY_FILE = 'secret.key';
const SECRET_KEY_BYTES = 32;

/**
 * The data directory's secret: 32 random bytes in `secret.key` (0600), made on first use. It
 * seals integration tokens and keys the hash that names end users in the rate limiter's store.
 */
export function dataDirSecret(dataDir: string): Buffer {
  ensureDataDir(dataDir);
  const path = join(dataDir, SECRET_KEY_FILE);
  if (!existsSync(path)) {
    // Written whole beside it, then linked into place: a link fails when the file exists, so two
    // processes starting together keep the first key, and neither reads one half written.
    const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, randomBytes(SECRET_KEY_BYTES), { flag: 'wx', mode: PRIVATE_FILE_MODE });
    try {
      linkSync(draft, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(draft, { force: true });
    }
  }
  const key = readFileSync(path);
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`${path} is damaged: expected ${SECRET_KEY_BYTES} bytes, found ${key.length}.`);
  return key;
}

function narrowToOwner(path: string): void {
  // Without POSIX users (Windows), modes say nothing about other users.
  if (process.getuid === undefined) return;
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  // Only the owner may change a mode; a file of another user is that user's business.
  if ((stats.mode & 0o077) === 0 || stats.uid !== process.getuid()) return;
  try {
    chmodSync(path, stats.mode & 0o700);
  } catch {
    // A read-only file system: the database opens as before, or fails with SQLite's own reason.
  }
}
