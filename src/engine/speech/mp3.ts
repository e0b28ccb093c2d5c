/** MP3 encoding as audio arrives (LAME compiled to WebAssembly, `wasm-media-encoders`, MIT). */
import { createMp3Encoder } from 'wasm-media-encoders';

/** Constant bit rate of the produced MP3: plenty for one synthetic voice. */
const KBPS = 64;

export interface Mp3Stream {
  /** MP3 bytes for these samples; may be empty while the encoder fills a frame. */
  encode(samples: Float32Array): Uint8Array;
  /** The last frames. */
  finish(): Uint8Array;
}

export async function openMp3Stream(sampleRate: number): Promise<Mp3Stream> {
  const encoder = await createMp3Encoder();
  encoder.configure({ channels: 1, sampleRate, bitrate: KBPS });
  // The encoder returns views of its own memory, reused by the next call: copy them out.
  return {
    encode: (samples) => encoder.encode([samples]).slice(),
    finish: () => encoder.finalize().slice(),
  };
}
