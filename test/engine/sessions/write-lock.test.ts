/**
 * Writes of the thread that serves requests (an answer's turn, new sources, a vote) while the
 * writer thread (here, another connection) holds the write lock: each waits for the lock without
 * holding up the requests behind it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { FROB_GUIDES } from '../../contract/fixtures.js';

describe('writes while the write lock is taken', () => {
  let dir: string;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-turn-lock-'));
    engine = await LocalEngine.open({ dataDir: dir });
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await engine.createDataSources('frob', FROB_GUIDES);
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `write` while another connection holds the write lock for 50 ms; a search must answer meanwhile. */
  async function underLock<T>(write: () => Promise<T>): Promise<T> {
    const writer = new Database(join(dir, 'guru.sqlite'));
    writer.prepare('BEGIN IMMEDIATE').run();
    let settled = false;
    const written = write().finally(() => {
      settled = true;
    });
    try {
      expect((await engine.semanticSearch('frob', { question: 'install' })).total_sources).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settled).toBe(false);
    } finally {
      writer.prepare('COMMIT').run();
      writer.close();
    }
    return written;
  }

  it("stores an answer's turn once the lock is free", async () => {
    const answer = await underLock(() => engine.ask('frob', { question: 'How do I install frobnicator?', fetch_existing: false }));
    expect(answer.references.length).toBeGreaterThan(0);
    const session = await engine.getSession('frob', answer.session_id);
    expect(session.root_question_slug).toBe(answer.slug);
    expect(session.conversation).toHaveLength(1);
  });

  it('adds sources and records a vote once the lock is free', async () => {
    const [created] = await underLock(() => engine.createDataSources('frob', { text_sources: [{ name: 'Upgrade notes', content: 'Upgrade frobnicator with frob upgrade.' }] }));
    expect(created).toMatchObject({ status: 'success' });
    await engine.whenIdle();
    expect((await engine.listDataSources('frob', { page: 1, page_size: 10 })).count).toBe(3);

    const answer = await engine.ask('frob', { question: 'How do I install frobnicator?', fetch_existing: false });
    const vote = await underLock(() => engine.recordVote('frob', { content_slug: answer.slug, vote_type: 'upvote' }));
    expect(vote).toMatchObject({ vote: 'upvote' });
  });
});
