/**
 * A piece of text (a sentence or a few) spoken by the eSpeak NG program
 * (`espeak-ng`, GPL-3.0, installed apart from this package: Debian and Ubuntu
 * `apt-get install espeak-ng`, Homebrew `brew install espeak-ng`). It runs as a
 * separate process per piece, reading the text on stdin and writing a WAV file
 * on stdout, at a lower priority than the thread that serves requests. The WAV
 * is read (readWav) where it is encoded, in an encoder thread: its samples are
 * millions of numbers.
 */
import { spawn } from 'node:child_process';
import { lowerPriorityOf } from '../lower-priority.js';

/** Mono audio, samples in [-1, 1]. */
export interface Pcm {
  readonly sampleRate: number;
  readonly samples: Float32Array;
}

export interface VoiceSettings {
  /** The program to run; `espeak-ng` on the PATH by default. */
  readonly program: string;
  readonly voice: string;
  /** Words per minute. */
  readonly wordsPerMinute: number;
}

/** The program could not be started at all (not installed, not executable). */
export class SynthesizerMissing extends Error {
  override readonly name = 'SynthesizerMissing';
}

/** The text spoken, as the WAV file the program wrote. */
export function synthesize(text: string, voice: VoiceSettings, signal: AbortSignal): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(voice.program, ['--stdout', '--stdin', '-b', '1', '-v', voice.voice, '-s', String(voice.wordsPerMinute)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      signal,
    });
    // Searches and answers come first: the voice takes the CPU they leave.
    if (child.pid !== undefined) lowerPriorityOf(child.pid);
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 2000) err += chunk.toString('utf8');
    });
    child.stdin.on('error', () => {}); // a child that dies early closes its stdin; its exit says why
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) reject(signal.reason);
      else if (error.code === 'ENOENT' || error.code === 'EACCES') reject(new SynthesizerMissing(`${voice.program}: ${error.code}`));
      else reject(error);
    });
    child.once('close', (code, killedBy) => {
      if (signal.aborted) return reject(signal.reason);
      if (code !== 0) return reject(new Error(`${voice.program} exited with ${code ?? killedBy}: ${err.trim()}`));
      // A buffer of its own (never a slice of Node's shared pool), so that it can move to the encoder thread.
      const wav = new Uint8Array(out.reduce((size, chunk) => size + chunk.length, 0));
      let offset = 0;
      for (const chunk of out) {
        wav.set(chunk, offset);
        offset += chunk.length;
      }
      resolve(wav);
    });
    child.stdin.end(text, 'utf8');
  });
}

/**
 * The samples of a 16-bit PCM WAV file. Written to a pipe, its sizes are
 * placeholders, so the data runs to the end of the file.
 */
export function readWav(wav: Buffer): Pcm {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('the synthesizer wrote no WAV audio');
  }
  let offset = 12;
  let sampleRate: number | undefined;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    const start = offset + 8;
    if (id === 'fmt ') {
      const format = wav.readUInt16LE(start);
      const channels = wav.readUInt16LE(start + 2);
      const bits = wav.readUInt16LE(start + 14);
      if (format !== 1 || channels !== 1 || bits !== 16) throw new Error(`unexpected WAV format ${format}, ${channels} channels, ${bits} bits`);
      sampleRate = wav.readUInt32LE(start + 4);
    } else if (id === 'data') {
      if (sampleRate === undefined) break;
      const end = Math.min(wav.length, start + size) & ~1;
      const samples = new Float32Array((end - start) / 2);
      for (let i = 0; i < samples.length; i += 1) samples[i] = wav.readInt16LE(start + 2 * i) / 32768;
      return { sampleRate, samples };
    }
    offset = start + size + (size % 2);
  }
  throw new Error('the WAV audio has no format or data chunk');
}
