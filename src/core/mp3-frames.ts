/**
 * Reading MP3 audio back, frame by frame, the way a player finds them: every
 * MPEG audio frame header (sync word, version, layer, bit rate, sample rate,
 * padding) and the frame length it implies, with no gap between frames. Says how
 * long audio lasts without decoding it.
 */

export interface Mp3Summary {
  readonly frames: number;
  readonly sampleRate: number;
  readonly bitratesKbps: ReadonlySet<number>;
  readonly durationSeconds: number;
  /** Bytes up to the end of the last whole frame: all of them unless `cutEnd` allowed a cut one. */
  readonly wholeFramesBytes: number;
}

const BITRATES_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES: Record<number, readonly number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/**
 * The frames of a whole MP3 file; throws at the first byte that is not the
 * start of a Layer III frame. With `cutEnd`, the file may end inside a frame
 * (a stream stopped midway): that frame is not counted.
 */
export function readMp3(bytes: Uint8Array, options: { readonly cutEnd?: boolean } = {}): Mp3Summary {
  let offset = skipId3(bytes);
  let frames = 0;
  let samples = 0;
  let sampleRate: number | undefined;
  const bitratesKbps = new Set<number>();
  let wholeFramesBytes = offset;
  while (offset < bytes.length) {
    if (offset + 4 > bytes.length && options.cutEnd === true) break;
    if (offset + 4 > bytes.length) throw new Error(`${bytes.length - offset} stray bytes at the end`);
    const header = ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
    if (header >>> 21 !== 0x7ff) throw new Error(`no frame sync at byte ${offset}`);
    const version = (header >>> 19) & 3;
    const layer = (header >>> 17) & 3;
    const bitrateIndex = (header >>> 12) & 15;
    const rateIndex = (header >>> 10) & 3;
    const padding = (header >>> 9) & 1;
    if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) {
      throw new Error(`not an MPEG Layer III frame header at byte ${offset}: ${header.toString(16)}`);
    }
    const kbps = (version === 3 ? BITRATES_V1 : BITRATES_V2)[bitrateIndex]!;
    const rate = SAMPLE_RATES[version]![rateIndex]!;
    if (sampleRate !== undefined && rate !== sampleRate) throw new Error(`sample rate changes at byte ${offset}`);
    sampleRate = rate;
    const perFrame = version === 3 ? 1152 : 576;
    const length = Math.floor(((perFrame / 8) * kbps * 1000) / rate) + padding;
    if (offset + length > bytes.length && options.cutEnd === true) break;
    if (offset + length > bytes.length) throw new Error(`the last frame is cut: ${bytes.length - offset} of ${length} bytes`);
    bitratesKbps.add(kbps);
    frames += 1;
    samples += perFrame;
    offset += length;
    wholeFramesBytes = offset;
  }
  if (sampleRate === undefined) throw new Error('no MP3 frames');
  return { frames, sampleRate, bitratesKbps, durationSeconds: samples / sampleRate, wholeFramesBytes };
}

function skipId3(bytes: Uint8Array): number {
  if (bytes.length < 10 || bytes[0] !== 0x49 || bytes[1] !== 0x44 || bytes[2] !== 0x33) return 0;
  const size = ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
  return 10 + size;
}
