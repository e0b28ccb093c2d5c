/**
 * Pieces of text (a sentence, or a few) to one MP3 stream: each piece is
 * synthesized by an eSpeak NG process, encoded (in an encoder thread) and handed
 * on as soon as it is ready, while the next ones are synthesized. At most
 * LOOKAHEAD pieces are in the works at once, so memory stays flat however long
 * the text is, and a consumer that stops (or an abort) ends the processes and
 * gives the encoder thread back.
 */
import { synthesize, type VoiceSettings } from './espeak.js';
import type { Mp3Encoders, Mp3Encoding } from './mp3-encoders.js';

/** Pieces synthesized at once, per stream: one being encoded, one being prepared. */
const LOOKAHEAD = 2;

export async function* mp3Speech(
  pieces: readonly string[],
  voice: VoiceSettings,
  encoders: Mp3Encoders,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const pending: Promise<Uint8Array>[] = [];
  let next = 0;
  const fill = () => {
    while (pending.length < LOOKAHEAD && next < pieces.length) {
      const spoken = synthesize(pieces[next] ?? '', voice, stop.signal);
      spoken.catch(() => {}); // awaited in turn below; a later failure must not go unhandled meanwhile
      pending.push(spoken);
      next += 1;
    }
  };
  let encoder: Mp3Encoding | undefined;
  try {
    signal?.throwIfAborted();
    encoder = encoders.lease();
    for (fill(); pending.length > 0; fill()) {
      const wav = await (pending.shift() as Promise<Uint8Array>);
      fill(); // the next piece is synthesized while this one is encoded
      const bytes = await encoder.encode(wav);
      signal?.throwIfAborted();
      if (bytes.length > 0) yield bytes;
    }
    const last = await encoder.finish();
    if (last.length > 0) yield last;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stop.abort();
    encoder?.release();
  }
}
