/**
 * text_to_speech through the real MCP client: MP3 audio content with its
 * structured description, the size cap said when it cuts, and the spec's
 * messages as isError results.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMp3 } from '../../src/core/mp3-frames.js';
import { silentLogger } from '../../src/log.js';
import { AUDIO_BYTE_CAP } from '../../src/mcp/tools/speech.js';
import { startSpeechStandIn, type SpeechStandIn } from '../stand-ins/openai-speech.js';
import { spokenDurationRange } from '../support/spoken-duration.js';
import { ERAS, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';

describe.each(ERAS)('MCP text_to_speech (%s)', (era) => {
  let test: TestBackend;
  let client: Client;
  let provider: SpeechStandIn;

  beforeAll(async () => {
    provider = await startSpeechStandIn();
    test = await openTestBackend({ ttsUrl: provider.baseUrl, ttsModel: 'tts-1' });
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterAll(async () => {
    await client?.close();
    await test?.close();
    await provider?.close();
  });

  const speak = async (args: Record<string, unknown>) => (await client.callTool({ name: 'text_to_speech', arguments: args })) as CallToolResult;
  const audioOf = (result: CallToolResult) => {
    const block = result.content.find((item) => item.type === 'audio');
    if (block?.type !== 'audio') throw new Error(`no audio content in ${JSON.stringify(result.content)}`);
    expect(block.mimeType).toBe('audio/mpeg');
    return Buffer.from(block.data, 'base64');
  };

  it('returns MP3 audio content, described by its structured content', async () => {
    const result = await speak({ text: '## Installing\n\nRun **frob install** and then `frob run`. It takes a minute.' });
    expect(result.isError, textOf(result)).toBeFalsy();
    const audio = audioOf(result);
    const mp3 = readMp3(audio);
    const [shortest, longest] = spokenDurationRange(10);
    expect(mp3.durationSeconds).toBeGreaterThan(shortest);
    expect(mp3.durationSeconds).toBeLessThan(longest);
    expect(result.structuredContent).toEqual({
      mime_type: 'audio/mpeg',
      bytes: audio.length,
      duration_seconds: Math.round(mp3.durationSeconds * 10) / 10,
      truncated: false,
    });
    expect(textOf(result)).toBe(`${Math.round(mp3.durationSeconds * 10) / 10} s of MP3 audio (${audio.length} bytes).`);
  });

  it('cuts long audio at the size cap, on whole frames, and says so', async () => {
    const text = Array.from({ length: 300 }, (_, i) => `Sentence number ${i + 1} is read aloud here.`).join(' ');
    const result = await speak({ text });
    expect(result.isError, textOf(result)).toBeFalsy();
    const audio = audioOf(result);
    expect(audio.length).toBeLessThanOrEqual(AUDIO_BYTE_CAP);
    expect(audio.length).toBeGreaterThan(AUDIO_BYTE_CAP * 0.9);
    readMp3(audio);
    expect(result.structuredContent).toMatchObject({ truncated: true, bytes: audio.length });
    expect(textOf(result)).toContain('the end of the text is not spoken');
  });

  it('version 2 speaks through the provider once the operator enabled it', async () => {
    const refused = await speak({ text: 'Hello there.', version: 2 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('Text-to-speech is not enabled for this guru type');
    await test.backend.admin!.updateGuruSettings('frob', { speech_provider: true });
    const result = await speak({ text: 'Hello there.', version: 2 });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readMp3(audioOf(result)).frames).toBe(2 * 15);
    expect(provider.received.at(-1)?.body).toMatchObject({ input: 'Hello there.', model: 'tts-1', voice: 'alloy' });
  });

  it("reports the spec's errors as isError results", async () => {
    const empty = await speak({ text: '' });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toContain('No text provided');
    const unknown = await speak({ text: 'Hello.', guru_slug: 'nope' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('Guru type nope not found');
  });
});
