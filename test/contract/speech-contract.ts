/**
 * Text to speech (version 1), part of the Assistant contract: the same MP3
 * stream and errors from the local engine and through the remote adapter.
 */
import { describe, expect, it } from 'vitest';
import type { Assistant } from '../../src/core/assistant.js';
import { readMp3 } from '../../src/core/mp3-frames.js';
import { spokenDurationRange } from '../support/spoken-duration.js';
import type { CurrentHarness } from './around-answer-contract.js';

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const received: Uint8Array[] = [];
  for await (const chunk of chunks) received.push(chunk);
  return Buffer.concat(received);
}

export function speechContract(current: CurrentHarness): void {
  const assistant = (): Assistant => current().assistant;
  const speak = async (text: string, guru = 'frob') => collect(await assistant().textToSpeech(guru, { text }));

  describe('text to speech', () => {
    it('streams MP3 frames as long as the words take to say', async () => {
      const mp3 = readMp3(await speak('Pancakes need flour, milk and two eggs. Whisk them well.'));
      const [shortest, longest] = spokenDurationRange(10);
      expect(mp3.durationSeconds).toBeGreaterThan(shortest);
      expect(mp3.durationSeconds).toBeLessThan(longest);
    });

    it('says code in backticks as "Code block" and "Inline code", as the spec says', async () => {
      const withCode = await speak('Run this:\n```sh\nfrob run --all\n```\nthen `frob logs` shows the log.');
      const substituted = await speak('Run this:\nCode block.\nthen Inline code shows the log.');
      const spokenCode = await speak('Run this:\nfrob run --all.\nthen frob logs shows the log.');
      expect(withCode.equals(substituted)).toBe(true);
      expect(withCode.equals(spokenCode)).toBe(false);
    });

    it('can be left after the first chunk', async () => {
      const stream = await assistant().textToSpeech('frob', { text: 'One sentence. Another sentence. A third one to finish.' });
      for await (const chunk of stream) {
        expect(chunk.length).toBeGreaterThan(0);
        break;
      }
    });

    it('version 2: not enabled until the operator enables it, then the provider\'s MP3 with code described', async () => {
      const text = 'Run:\n```sh\nfrob run\n```';
      await expect(assistant().textToSpeech('frob', { text }, { version: 2 })).rejects.toMatchObject({
        message: 'Text-to-speech is not enabled for this guru type',
        status: 403,
      });
      await current().enableProviderSpeech('frob');
      const mp3 = readMp3(await collect(await assistant().textToSpeech('frob', { text }, { version: 2 })));
      expect(mp3.frames).toBe(9 * 15); // the stand-in's 15 frames for each of the 9 words sent
      expect(current().speechProvider.received.map(({ body }) => body.input)).toEqual(['Run: Here is a code example in the shell.']);
    });

    it('refuses a text with nothing to say and an unknown guru', async () => {
      await expect(assistant().textToSpeech('frob', { text: '' })).rejects.toMatchObject({ message: 'No text provided', status: 400 });
      await expect(assistant().textToSpeech('nope', { text: 'Hello.' })).rejects.toMatchObject({ message: 'Guru type nope not found', status: 404 });
    });
  });
}
