/**
 * What every capability of the local engine is built over: the open
 * database, the engine's clock and logger, and the settings it was opened
 * with. Capabilities get anything else (another capability's API) through
 * their constructor, never by reaching into its tables.
 */
import type { GuruSettings } from '../core/schemas.js';
import type { Logger } from '../log.js';
import type { ChatSettings } from '../providers/chat.js';
import type { ModelStepSettings } from './answer/model/model-pipeline.js';
import type { EmbeddingsSettings } from '../providers/embeddings.js';
import type { ExtractionSettings } from './ingest/extract/extraction-pool.js';
import type { ProcessorLimits } from './ingest/processor.js';
import type { SpeechProviderSettings } from '../providers/speech.js';
import type { VoiceSettings } from './speech/espeak.js';
import type { SpeechStreamLimits } from './speech/speech-slots.js';
import type { Store } from './store/sql.js';

export interface EngineSettings {
  readonly dataDir: string;
  /**
   * The durable store in PostgreSQL 15+ (`postgresql://USER:PASSWORD@HOST:PORT/DATABASE`) instead of
   * `<dataDir>/guru.sqlite` (./store/open-store.ts). Never logged with its password.
   */
  readonly databaseUrl?: string;
  /** Short-lived state (rate-limit windows, answer progress) in Redis instead of `<dataDir>/state.sqlite`. */
  readonly redisUrl?: string;
  readonly logger?: Logger;
  /** Let readers fetch from loopback and private addresses (refused by default). */
  readonly allowPrivateNetwork?: boolean;
  /** Where YouTube requests go instead of youtube.com (tests point it at a stand-in). */
  readonly youtubeBaseUrl?: string;
  /** How many sources are read at once, in all and from one host. */
  readonly processing?: ProcessorLimits;
  /** The worker threads that turn web pages and documents into Markdown. */
  readonly extraction?: ExtractionSettings;
  /** An OpenAI-compatible embeddings endpoint: search becomes hybrid (BM25 and vectors, fused). */
  readonly embeddings?: EmbeddingsSettings;
  /** An OpenAI-compatible chat-completions endpoint, for generated answers, follow-up examples and end users' memories. */
  readonly llm?: ChatSettings;
  /**
   * How long the language model may take to reword a question before the search and to pick the
   * passages that answer before generation; 0 turns a step off. Default 2.5 s and 4 s.
   */
  readonly modelSteps?: Partial<ModelStepSettings>;
  /** The YouTube Data API, for importing channels and playlists. */
  readonly youtubeApi?: { readonly apiKey?: string; readonly baseUrl?: string };
  /** The offline voice (eSpeak NG): its program, voice and speed. */
  readonly speech?: Partial<VoiceSettings>;
  /** How many texts the offline voice reads at once, per caller and in all. */
  readonly speechStreams?: SpeechStreamLimits;
  /** An OpenAI-compatible `/audio/speech` endpoint: text-to-speech version 2, for the gurus the operator enables. */
  readonly speechProvider?: SpeechProviderSettings;
  /**
   * The most a guru's attachment limits may be set to, per kind (GURU_ATTACHMENT_CEILING);
   * kinds not given keep the default limits as theirs.
   */
  readonly attachmentCeiling?: Partial<GuruSettings['attachment_limits']>;
  /** The engine's idea of now; tests move it to place sessions in time. */
  readonly clock?: () => Date;
}

export interface EngineContext {
  /** The durable store: every capability reads and writes through it. */
  readonly sql: Store;
  readonly logger: Logger;
  readonly clock: () => Date;
  readonly settings: EngineSettings;
}

/** The context's now as stored in the database (ISO 8601, UTC). */
export const timestamp = (context: EngineContext): string => context.clock().toISOString();
