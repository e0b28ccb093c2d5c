/**
 * What only the embedded engine shows of answer progress: the line while an
 * answer is under way (held at its search by an embeddings service that waits
 * for the test), the stages of a follow-up, and one line shared by every
 * engine on the data directory. Expiry and the REST shape are the contract
 * suite's (test/contract/around-answer-contract.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { json, replying, startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';
import { FROB_GUIDES } from '../../contract/fixtures.js';

const NOW = new Date('2026-11-20T12:00:00Z');

describe('answer progress in the engine', () => {
  let dir: string;
  let embeddings: LoopbackServer;
  let engine: LocalEngine;
  /** Embedding requests of texts with this word wait until `release` is called. */
  const HELD_WORD = 'zorp';
  let held = false;
  let release: () => void = () => {};

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-progress-'));
    const gate = new Promise<void>((resolve) => (release = resolve));
    held = false;
    embeddings = await startLoopbackServer(
      replying(async (request) => {
        const { input } = JSON.parse(request.body) as { input: string[] };
        if (input.some((text) => text.includes(HELD_WORD))) {
          held = true;
          await gate;
        }
        return json(200, { object: 'list', data: input.map((_text, index) => ({ object: 'embedding', index, embedding: [1, 0.5] })) });
      }),
    );
    engine = await LocalEngine.open({ dataDir: dir, clock: () => NOW, embeddings: { baseUrl: `${embeddings.origin}/v1`, model: 'flat' } });
    await engine.createGuru({ slug: 'frob' });
    await engine.createDataSources('frob', FROB_GUIDES);
    await engine.whenIdle();
  });

  afterEach(async () => {
    release();
    await engine.close();
    await embeddings.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const progressOf = (engineOf: LocalEngine, user: string) => engineOf.answerProgress('frob', { external_user_id: user });

  it('says "Searching the knowledge base…" while the search waits, then "Writing the answer…"', async () => {
    const asking = engine.ask('frob', { question: `How do I install ${HELD_WORD}?`, external_user_id: 'u1', fetch_existing: false });
    while (!held) await sleep(5);
    await expect(progressOf(engine, 'u1')).resolves.toEqual({ status_text: 'Searching the knowledge base…', updated_at: NOW.getTime() / 1000 });
    release();
    await asking;
    await expect(progressOf(engine, 'u1')).resolves.toEqual({ status_text: 'Writing the answer…', updated_at: NOW.getTime() / 1000 });
  });

  it('shows the line to every engine on the data directory (server instances of one deployment)', async () => {
    const other = await LocalEngine.open({ dataDir: dir, clock: () => NOW });
    try {
      await engine.ask('frob', { question: 'Where are the settings?', external_user_id: 'shared', fetch_existing: false });
      await expect(progressOf(other, 'shared')).resolves.toMatchObject({ status_text: 'Writing the answer…' });
    } finally {
      await other.close();
    }
  });

  it('gathers the context of the session first on a follow-up', async () => {
    const first = await engine.ask('frob', { question: 'How do I install Frobnicator?', external_user_id: 'u2', fetch_existing: false });
    const stages: string[] = [];
    await engine.ask(
      'frob',
      { question: 'and the settings?', session_id: first.session_id, external_user_id: 'u2', fetch_existing: false },
      { onStage: (line) => stages.push(line) },
    );
    expect(stages).toEqual(['Gathering context', 'Searching the knowledge base', 'Writing the answer']);
  });

  it('echoes nothing the user typed, however long the end-user id', async () => {
    const user = 'ü'.repeat(256);
    await engine.ask('frob', { question: 'Secret words about the configuration file', external_user_id: user, fetch_existing: false });
    const line = await progressOf(engine, user);
    expect(line.status_text).toBe('Writing the answer…');
    expect(await progressOf(engine, 'ü'.repeat(255))).toEqual({ status_text: '', updated_at: null });
  });
});
