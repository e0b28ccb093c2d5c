/**
 * The offline voice behind the port: an abort reaches the synthesis under way
 * (a sentence whose synthesis never ends on its own), and the stream ends; a
 * caller that names no one (MCP, the CLI) is capped per guru.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGuruError } from '../../../src/core/errors.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { espeakStandIn, type EspeakStandIn } from '../../stand-ins/espeak-program.js';

describe('LocalSpeech', () => {
  let root: string;
  let held: EspeakStandIn;
  let engine: LocalEngine;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'guru-local-speech-'));
    held = espeakStandIn(root, { holdWord: 'Finale' });
    engine = await LocalEngine.open({
      dataDir: join(root, 'data'),
      processQueue: false,
      speech: { program: held.program },
      speechStreams: { perCaller: 1, total: 4 },
    });
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

  it('reads one text at a time per guru here, and an abort gives the place back', async () => {
    const controller = new AbortController();
    const first = await engine.textToSpeech('frob', { text: 'A first sentence. Finale that never ends.' }, { signal: controller.signal });
    expect((await first[Symbol.asyncIterator]().next()).done).toBe(false);
    const refused = await engine.textToSpeech('frob', { text: 'Hello.' }).catch((error: unknown) => error);
    expect(isGuruError(refused) && { status: refused.status, body: refused.toBody(), retry: refused.retryAfterSeconds }).toEqual({
      status: 429,
      body: { error: 'Rate limit exceeded' },
      retry: 5,
    });
    // Another caller of the same guru (a REST key) has a place of its own.
    const chunks: Uint8Array[] = [];
    for await (const chunk of await engine.textToSpeech('frob', { text: 'Hello.' }, { caller: 'key:a' })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(0);

    controller.abort();
    const again = await engine.textToSpeech('frob', { text: 'Hello.' });
    for await (const chunk of again) expect(chunk.length).toBeGreaterThan(0);
  });

  it('gives the place back when a stream is left before it is read', async () => {
    const unread = await engine.textToSpeech('frob', { text: 'A first sentence. Finale that never ends.' });
    await unread[Symbol.asyncIterator]().return?.();
    const next = await engine.textToSpeech('frob', { text: 'Hello.' });
    for await (const chunk of next) expect(chunk.length).toBeGreaterThan(0);
  });
});
