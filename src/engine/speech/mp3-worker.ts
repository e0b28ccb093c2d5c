/**
 * The entry of an MP3 encoder thread (see mp3-encoders.ts): reads each piece's WAV audio and
 * encodes it with LAME, at a lower priority than the thread that serves requests. Encoding is
 * most of what speech costs (about 8 ms of CPU per second of audio, three times eSpeak NG's own
 * time), so it must not run where searches and answers are served. Built into
 * dist/bin/mp3-worker.js.
 */
import { parentPort } from 'node:worker_threads';
import { lowerThisThreadsPriority } from '../lower-priority.js';
import { readWav } from './espeak.js';
import { openMp3Stream, type Mp3Stream } from './mp3.js';
import type { EncoderReply, EncoderRequest } from './mp3-protocol.js';

const port = parentPort;
if (!port) throw new Error('mp3-worker.js runs in a worker thread, started by the speech engine');

const answer = (reply: EncoderReply): void => {
  if (reply.type === 'encoded') port.postMessage(reply, [reply.bytes.buffer as ArrayBuffer]);
  else port.postMessage(reply);
};

/** The stream being encoded, from its first piece to its end. */
let stream: { readonly encoder: Mp3Stream; readonly sampleRate: number } | undefined;

async function encode(wav: Uint8Array): Promise<Uint8Array> {
  const pcm = readWav(Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength));
  stream ??= { encoder: await openMp3Stream(pcm.sampleRate), sampleRate: pcm.sampleRate };
  if (pcm.sampleRate !== stream.sampleRate) throw new Error(`the synthesizer changed sample rate from ${stream.sampleRate} to ${pcm.sampleRate}`);
  return stream.encoder.encode(pcm.samples);
}

function finish(): Uint8Array {
  const last = stream?.encoder.finish() ?? new Uint8Array(0);
  stream = undefined;
  return last;
}

async function handle(request: EncoderRequest): Promise<void> {
  if (request.type === 'reset') {
    stream = undefined;
    return;
  }
  try {
    answer({ type: 'encoded', bytes: request.type === 'encode' ? await encode(request.wav) : finish() });
  } catch (error) {
    stream = undefined;
    answer({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
}

/** Requests run one at a time, in the order they came (opening an encoder is asynchronous). */
let previous: Promise<void> = Promise.resolve();
port.on('message', (request: EncoderRequest) => {
  previous = previous.then(() => handle(request));
});

lowerThisThreadsPriority();
