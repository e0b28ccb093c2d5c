/**
 * Sentences to one MP3 stream: each sentence is synthesized, encoded and
 * handed on as soon as it is ready, while the next ones are synthesized. At most
 * LOOKAHEAD sentences are in the works at once, so memory stays flat however
 * long the text is, and a consumer that stops (or an abort) ends the processes.
 */
import { openMp3Stream, type Mp3Stream } from './mp3.js';
import { synthesize, type Pcm, type VoiceSettings } from './espeak.js';

/** Sentences synthesized at once, per stream: one playing out, one being prepared. */
const LOOKAHEAD = 2;

export async function* mp3Speech(sentences: readonly string[], voice: VoiceSettings, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const pending: Promise<Pcm>[] = [];
  let next = 0;
  const fill = () => {
    while (pending.length < LOOKAHEAD && next < sentences.length) {
      const spoken = synthesize(sentences[next] ?? '', voice, stop.signal);
      spoken.catch(() => {}); // awaited in turn below; a later failure must not go unhandled meanwhile
      pending.push(spoken);
      next += 1;
    }
  };
  try {
    signal?.throwIfAborted();
    let encoder: Mp3Stream | undefined;
    let sampleRate = 0;
    for (fill(); pending.length > 0; fill()) {
      const pcm = await (pending.shift() as Promise<Pcm>);
      if (encoder === undefined) {
        sampleRate = pcm.sampleRate;
        encoder = await openMp3Stream(sampleRate);
      } else if (pcm.sampleRate !== sampleRate) {
        throw new Error(`the synthesizer changed sample rate from ${sampleRate} to ${pcm.sampleRate}`);
      }
      const bytes = encoder.encode(pcm.samples);
      if (bytes.length > 0) yield bytes;
    }
    if (encoder !== undefined) {
      const last = encoder.finish();
      if (last.length > 0) yield last;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
