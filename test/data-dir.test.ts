/**
 * What guru-mcp keeps in its data directory (conversations, end-user ids) is readable by its
 * user only: the databases of the engine and of the state store, with their -wal and -shm files.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataDirSecret } from '../src/data-dir.js';
import { LocalEngine } from '../src/engine/local-engine.js';
import { openStateStore } from '../src/state/keyv.js';

const DATABASES = ['guru.sqlite', 'state.sqlite'];
const WITH_COMPANIONS = DATABASES.flatMap((name) => [name, `${name}-wal`, `${name}-shm`]);

const modeOf = (path: string): number => statSync(path).mode & 0o777;

/** Opens the engine and the state store on `dataDir` and writes to both, so that every file exists. */
async function openBoth(dataDir: string): Promise<{ close(): Promise<void> }> {
  const engine = await LocalEngine.open({ dataDir });
  const state = await openStateStore({ dataDir }, 'test');
  await engine.createGuru({ slug: 'private' });
  await state.set('progress', 'Searching the knowledge base…');
  return {
    async close() {
      await state.disconnect();
      await engine.close();
    },
  };
}

describe('files in the data directory', () => {
  let parent: string;

  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'guru-data-dir-'));
    chmodSync(parent, 0o755);
  });

  afterEach(() => {
    rmSync(parent, { recursive: true, force: true });
  });

  it('creates the data directory 0700 and every database file 0600', async () => {
    const dataDir = join(parent, 'nested', 'data');
    const opened = await openBoth(dataDir);
    try {
      expect(modeOf(dataDir)).toBe(0o700);
      const modes = Object.fromEntries(WITH_COMPANIONS.map((name) => [name, modeOf(join(dataDir, name))]));
      expect(modes).toEqual(Object.fromEntries(WITH_COMPANIONS.map((name) => [name, 0o600])));
    } finally {
      await opened.close();
    }
  });

  it('creates its files 0600 in an existing 0755 directory, and leaves the directory as it is', async () => {
    const opened = await openBoth(parent);
    try {
      expect(modeOf(parent)).toBe(0o755);
      for (const name of WITH_COMPANIONS) expect({ name, mode: modeOf(join(parent, name)) }).toEqual({ name, mode: 0o600 });
    } finally {
      await opened.close();
    }
  });

  it('narrows database files that an older version left readable by others', async () => {
    // Databases as an older version left them: written in WAL mode by a process still running, all 0644.
    const older = DATABASES.map((name) => {
      const db = new Database(join(parent, name));
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE leftover (n INTEGER); INSERT INTO leftover VALUES (1);');
      return db;
    });
    try {
      for (const name of WITH_COMPANIONS) {
        expect(existsSync(join(parent, name))).toBe(true);
        chmodSync(join(parent, name), 0o644);
      }
      const opened = await LocalEngine.open({ dataDir: parent });
      const state = await openStateStore({ dataDir: parent }, 'test');
      try {
        await state.set('key', 'value');
        for (const name of WITH_COMPANIONS) expect({ name, mode: modeOf(join(parent, name)) }).toEqual({ name, mode: 0o600 });
      } finally {
        await state.disconnect();
        await opened.close();
      }
    } finally {
      for (const db of older) db.close();
    }
  });

  it('makes the secret once, 0600, and every caller reads the same 32 bytes', () => {
    const dataDir = join(parent, 'secret');
    const keys = Array.from({ length: 5 }, () => dataDirSecret(dataDir));
    expect(keys[0]).toHaveLength(32);
    for (const key of keys) expect(key.equals(keys[0]!)).toBe(true);
    expect(readdirSync(dataDir)).toEqual(['secret.key']);
    if (process.getuid !== undefined) expect(modeOf(join(dataDir, 'secret.key'))).toBe(0o600);
  });
});
