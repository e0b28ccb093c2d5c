/**
 * The offline voice behind the port: an abort reaches the synthesis under way
 * (a sentence whose synthesis never ends on its own), and the stream ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { espeakStandIn, type EspeakStandIn } from '../../stand-ins/espeak-program.js';

describe('LocalSpeech', () => {
  let root: string;
  let held: EspeakStandIn;
  let engine: LocalEngine;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'guru-local-speech-'));
    held = espeakStandIn(root, { holdWord: 'Finale' });
    engine = LocalEngine.open({ dataDir: join(root, 'data'), processQueue: false, speech: { program: held.program } });
    await engine.createGuru({ slug: 'frob' });
  });

  afterAll(async () => {
    held?.release();
    await engine?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('stops the synthesis under way when the caller aborts', async () => {
    const controller = new AbortController();
    const stream = await engine.textToSpeech('frob', { text: 'A first sentence. Finale that never ends.' }, { signal: controller.signal });
    const chunks = stream[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    // The next audio waits on the held sentence: only the abort can end it.
    const next = chunks.next();
    controller.abort();
    await expect(next).rejects.toMatchObject({ name: 'AbortError' });
  });
});
