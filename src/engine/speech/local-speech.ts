/**
 * Text to speech. Version 1: the text made ready for speech, read by the
 * offline eSpeak NG voice a few sentences at a time and encoded to MP3 as it goes,
 * in encoder threads; a caller reads a few texts at once and the server a few
 * more (speech-slots.ts), since each takes a core while it is synthesized.
 * Version 2: the speech provider (an OpenAI-compatible `/audio/speech`), for
 * the gurus the operator enabled, its MP3 passed on as it arrives. The
 * synthesis modules load on first use, so the servers start no slower.
 */
import type { Speech, SpeechOptions } from '../../core/assistant.js';
import { Errors, isGuruError } from '../../core/errors.js';
import { TextToSpeechRequest } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { describeError, type Logger } from '../../log.js';
import type { SpeechProvider } from '../../providers/speech.js';
import type { EngineContext } from '../context.js';
import type { LocalGurus } from '../gurus/local-gurus.js';
import type { VoiceSettings } from './espeak.js';
import type { Mp3Encoders } from './mp3-encoders.js';
import { SpeechSlots, type SpeechSlot } from './speech-slots.js';
import { sentencesOf, speechText } from './speech-text.js';

export const DEFAULT_VOICE: VoiceSettings = { program: 'espeak-ng', voice: 'en-us', wordsPerMinute: 165 };

/**
 * What one eSpeak NG process reads after the first sentence (which is read alone, so that the
 * first audio comes soon): sentences grouped up to this many characters. Each process started
 * costs the thread serving requests a fork, about 2 ms and tens under load; one per sentence
 * made a 20,000-character text some 250 of them, this about 20. A piece of 1,000 characters is
 * about a minute of audio, synthesized in a fifth of a second while the one before it plays.
 */
const VOICE_PIECE_CHARS = 1_000;

const INSTALL_HINT = 'Install the espeak-ng program for offline speech: `apt-get install espeak-ng` (Debian, Ubuntu) or `brew install espeak-ng`.';
const PROVIDER_HINT = 'Set GURU_TTS_URL and GURU_TTS_MODEL (and GURU_TTS_VOICE, GURU_TTS_API_KEY) to an OpenAI-compatible speech endpoint.';

export class LocalSpeech implements Speech {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #slots: SpeechSlots;
  #provider: SpeechProvider | undefined;
  #encoders: Mp3Encoders | undefined;

  constructor(context: EngineContext, gurus: LocalGurus) {
    this.#context = context;
    this.#gurus = gurus;
    this.#slots = new SpeechSlots(context.settings.speechStreams);
  }

  async textToSpeech(slug: string, raw: TextToSpeechRequest, options: SpeechOptions = {}): Promise<AsyncIterable<Uint8Array>> {
    const guru = await this.#gurus.find('text_to_speech', slug);
    const { text } = parseRequest(TextToSpeechRequest, raw, 'text_to_speech');
    if (options.version === 2) {
      if (!(await this.#gurus.settingsOf(guru)).speech_provider) throw Errors.textToSpeechDisabled();
      return this.#providerSpeech(text, options.signal);
    }
    // Before any work on the text: a caller over its cap costs next to nothing.
    const slot = this.#slots.take(options.caller ?? `guru:${guru}`);
    try {
      const [first, ...rest] = sentencesOf(speechText(text));
      if (first === undefined) throw noWords();
      const pieces = [first, ...segmentsOf(rest, VOICE_PIECE_CHARS)];
      const voice = { ...DEFAULT_VOICE, ...this.#context.settings.speech };
      const [{ mp3Speech }, { Mp3Encoders }] = await Promise.all([import('./mp3-speech.js'), import('./mp3-encoders.js')]);
      this.#encoders ??= new Mp3Encoders();
      return await this.#startedStream(mp3Speech(pieces, voice, this.#encoders, options.signal), options.signal, slot);
    } catch (error) {
      slot();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.#provider?.close();
    await this.#encoders?.close();
  }

  async #providerSpeech(text: string, signal: AbortSignal | undefined): Promise<AsyncIterable<Uint8Array>> {
    const settings = this.#context.settings.speechProvider;
    if (settings === undefined) {
      this.#context.logger.error('speech provider not configured', { hint: PROVIDER_HINT });
      throw Errors.speechFailed(PROVIDER_HINT);
    }
    const { SpeechProvider, PROVIDER_MAX_INPUT_CHARS } = await import('../../providers/speech.js');
    const segments = segmentsOf(sentencesOf(speechText(text, undefined, 'described'), PROVIDER_MAX_INPUT_CHARS), PROVIDER_MAX_INPUT_CHARS);
    if (segments.length === 0) throw noWords();
    const provider = (this.#provider ??= new SpeechProvider(settings));
    async function* spoken(): AsyncGenerator<Uint8Array> {
      for (const segment of segments) yield* await provider.speak(segment, signal);
    }
    return this.#startedStream(spoken(), signal);
  }

  /**
   * The stream once its first bytes are ready: a failure before them is the
   * spec's "Error generating speech stream"; after them the stream ends early
   * and the failure is logged. Its `slot`, if any, is given back when the
   * stream ends, fails, is left by its consumer or is aborted.
   */
  async #startedStream(audio: AsyncGenerator<Uint8Array>, signal: AbortSignal | undefined, slot: SpeechSlot = () => {}): Promise<AsyncIterable<Uint8Array>> {
    let first: IteratorResult<Uint8Array>;
    try {
      first = await audio.next();
    } catch (error) {
      slot();
      if (signal?.aborted || isGuruError(error)) throw error;
      const missing = error instanceof Error && error.name === 'SynthesizerMissing';
      this.#context.logger.error('speech synthesis failed', { error: describeError(error), ...(missing ? { hint: INSTALL_HINT } : {}) });
      throw Errors.speechFailed(missing ? INSTALL_HINT : undefined);
    }
    return new StartedStream(first, audio, signal, slot, this.#context.logger);
  }
}

/**
 * A stream whose first bytes are there. Unlike a generator, it ends its audio
 * (the synthesizer processes, the encoder thread) and frees its slot however it
 * is left: read to the end, failed, return() even before the first next(), or
 * aborted while no one reads it.
 */
class StartedStream implements AsyncIterableIterator<Uint8Array> {
  #first: IteratorResult<Uint8Array> | undefined;
  readonly #audio: AsyncGenerator<Uint8Array>;
  readonly #signal: AbortSignal | undefined;
  readonly #slot: SpeechSlot;
  readonly #logger: Logger;
  #ended: Promise<void> | undefined;
  readonly #onAbort = () => {
    this.#slot(); // at once: the place is free even while the audio winds down
    this.#end().catch(() => {}); // whatever ends the audio now, the stream is over
  };

  constructor(first: IteratorResult<Uint8Array>, audio: AsyncGenerator<Uint8Array>, signal: AbortSignal | undefined, slot: SpeechSlot, logger: Logger) {
    this.#first = first;
    this.#audio = audio;
    this.#signal = signal;
    this.#slot = slot;
    this.#logger = logger;
    if (signal?.aborted) this.#onAbort();
    else signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    const first = this.#first;
    this.#first = undefined;
    if (this.#ended !== undefined) return { done: true, value: undefined };
    try {
      const result = first ?? (await this.#audio.next());
      if (result.done === true) await this.#end();
      return result;
    } catch (error) {
      if (!this.#signal?.aborted) this.#logger.error('speech stream ended early', { error: describeError(error) });
      await this.#end();
      throw error;
    }
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    await this.#end();
    return { done: true, value: undefined };
  }

  #end(): Promise<void> {
    this.#ended ??= (async () => {
      this.#signal?.removeEventListener('abort', this.#onAbort);
      try {
        await this.#audio.return(undefined);
      } finally {
        this.#slot();
      }
    })();
    return this.#ended;
  }
}

const noWords = () => Errors.invalidRequest('text_to_speech', 'the text has no words to speak');

/** Sentences grouped into as few requests as fit `maxChars` each. */
function segmentsOf(sentences: readonly string[], maxChars: number): string[] {
  const segments: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current !== '' && current.length + 1 + sentence.length > maxChars) {
      segments.push(current);
      current = '';
    }
    current = current === '' ? sentence : `${current} ${sentence}`;
  }
  if (current !== '') segments.push(current);
  return segments;
}
