/** An end user's sessions through the engine, on each store. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { onEachStore, type EngineDatabase } from '../../support/engine-stores.js';

onEachStore((store) => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-end-user-sessions-'));
    database = await store.database(dir);
    // One instant for every session: only the order they were opened in tells them apart.
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, clock: () => new Date('2026-11-20T12:00:00Z') });
    await engine.createGuru({ slug: 'frob' });
  });

  afterEach(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the end user's sessions opened in the same millisecond in the order they were opened", async () => {
    const opened: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      opened.push((await engine.ask('frob', { question: `Question ${i}?`, fetch_existing: false, external_user_id: 'user-1' })).session_id);
    }
    const data = await engine.getEndUserData('frob', 'user-1', { limit: 100, offset: 0 });
    expect(data.data.conversations.map((conversation) => conversation.id)).toEqual(opened);
    expect(await database.rows('binges')).toBe(8);
  });

  it('clears the end user from the tombstones of sessions deleted before the erase', async () => {
    const user = 'user-7f3e9d2a-secret';
    const answered = await engine.ask('frob', { fetch_existing: false, question: 'How do I install frobnicator?', external_user_id: user });
    await engine.deleteSession('frob', answered.session_id);
    expect(await database.holding(user)).not.toEqual([]);
    const erased = await engine.eraseEndUserData('frob', user);
    expect(erased.deleted).toMatchObject({ questions: 0, conversations: 0 });
    expect(await database.holding(user)).toEqual([]);
  });
});
