/**
 * Text to speech. Version 1: the text made ready for speech, read by the
 * offline eSpeak NG voice sentence by sentence and encoded to MP3 as it goes.
 * Version 2: the speech provider (an OpenAI-compatible `/audio/speech`), for
 * the gurus the operator enabled, its MP3 passed on as it arrives. The
 * synthesis modules load on first use, so the servers start no slower.
 */
import type { Speech, SpeechOptions } from '../../core/assistant.js';
import { Errors, isGuruError } from '../../core/errors.js';
import { TextToSpeechRequest } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { describeError } from '../../log.js';
import type { SpeechProvider } from '../../providers/speech.js';
import type { EngineContext } from '../context.js';
import type { LocalGurus } from '../gurus/local-gurus.js';
import type { VoiceSettings } from './espeak.js';
import { sentencesOf, speechText } from './speech-text.js';

export const DEFAULT_VOICE: VoiceSettings = { program: 'espeak-ng', voice: 'en-us', wordsPerMinute: 165 };

const INSTALL_HINT = 'Install the espeak-ng program for offline speech: `apt-get install espeak-ng` (Debian, Ubuntu) or `brew install espeak-ng`.';
const PROVIDER_HINT = 'Set GURU_TTS_URL and GURU_TTS_MODEL (and GURU_TTS_VOICE, GURU_TTS_API_KEY) to an OpenAI-compatible speech endpoint.';

export class LocalSpeech implements Speech {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  #provider: SpeechProvider | undefined;

  constructor(context: EngineContext, gurus: LocalGurus) {
    this.#context = context;
    this.#gurus = gurus;
  }

  async textToSpeech(slug: string, raw: TextToSpeechRequest, options: SpeechOptions = {}): Promise<AsyncIterable<Uint8Array>> {
    const guru = this.#gurus.find('text_to_speech', slug);
    const { text } = parseRequest(TextToSpeechRequest, raw, 'text_to_speech');
    if (options.version === 2) {
      if (!this.#gurus.settingsOf(guru).speech_provider) throw Errors.textToSpeechDisabled();
      return this.#providerSpeech(text, options.signal);
    }
    const sentences = sentencesOf(speechText(text));
    if (sentences.length === 0) throw noWords();
    const voice = { ...DEFAULT_VOICE, ...this.#context.settings.speech };
    const { mp3Speech } = await import('./mp3-speech.js');
    return this.#startedStream(mp3Speech(sentences, voice, options.signal), options.signal);
  }

  async close(): Promise<void> {
    await this.#provider?.close();
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
   * and the failure is logged.
   */
  async #startedStream(audio: AsyncGenerator<Uint8Array>, signal: AbortSignal | undefined): Promise<AsyncIterable<Uint8Array>> {
    let first: IteratorResult<Uint8Array>;
    try {
      first = await audio.next();
    } catch (error) {
      if (signal?.aborted || isGuruError(error)) throw error;
      const missing = error instanceof Error && error.name === 'SynthesizerMissing';
      this.#context.logger.error('speech synthesis failed', { error: describeError(error), ...(missing ? { hint: INSTALL_HINT } : {}) });
      throw Errors.speechFailed(missing ? INSTALL_HINT : undefined);
    }
    const logger = this.#context.logger;
    return (async function* () {
      try {
        if (first.done === true) return;
        yield first.value;
        yield* audio;
      } catch (error) {
        if (!signal?.aborted) logger.error('speech stream ended early', { error: describeError(error) });
        throw error;
      } finally {
        await audio.return(undefined);
      }
    })();
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
