/**
 * What only the local engine shows of votes, on each store: what it stores, and two engines on
 * one data directory or database (two server processes) voting at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { INSTALL_GUIDE } from '../../contract/fixtures.js';
import { onEachStore, type EngineDatabase } from '../../support/engine-stores.js';

describe('LocalVotes', () => onEachStore((store) => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-votes-'));
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, clock: () => new Date('2026-11-20T12:00:00Z') });
    await engine.createGuru({ slug: 'frob' });
    await engine.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores the vote with its feedback and time on the turn', async () => {
    const answer = await engine.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
    await engine.recordVote('frob', { content_slug: answer.slug, vote_type: 'upvote', feedback: 'Works' });
    expect(await database.get('SELECT user_vote, vote_feedback, voted_at FROM questions WHERE slug = ?', [answer.slug])).toEqual({
      user_vote: 'upvote',
      vote_feedback: 'Works',
      voted_at: '2026-11-20T12:00:00.000Z',
    });
  });

  it('takes only the first of two votes from two engines on the same data (two server processes)', async () => {
    const answer = await engine.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
    const second = await LocalEngine.open({ dataDir: dir, ...database.settings });
    try {
      const outcomes = await Promise.all([
        engine.recordVote('frob', { content_slug: answer.slug, vote_type: 'upvote' }),
        second.recordVote('frob', { content_slug: answer.slug, vote_type: 'downvote' }),
      ]);
      const taken = outcomes.filter((outcome) => !('msg' in outcome));
      const refused = outcomes.filter((outcome) => 'msg' in outcome);
      expect(taken).toHaveLength(1);
      expect(refused).toEqual([{ msg: 'Already voted', vote: taken[0]?.vote }]);
      expect((await second.getSession('frob', answer.session_id)).conversation[0]?.user_vote).toBe(taken[0]?.vote);
    } finally {
      await second.close();
    }
  });
}));
