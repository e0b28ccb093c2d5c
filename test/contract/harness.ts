/**
 * The two ways the contract suite reaches the service: the local engine called
 * directly, and the remote adapter talking to our own REST server over
 * loopback HTTP (in front of a local engine). Each run gets the Assistant under
 * test and hooks into the serving side that no client of the port has: creating
 * a guru, waiting for processing, moving the clock, and the YouTube Data API
 * stand-in the serving engine imports video lists from.
 */
import { startSpeechStandIn, type SpeechStandIn } from '../stand-ins/openai-speech.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRateLimiter } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import type { Assistant } from '../../src/core/assistant.js';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { startHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';
import { RemoteAssistant } from '../../src/remote/remote-assistant.js';
import { startYouTubeDataApiStandIn, type YouTubeDataApiStandIn } from '../stand-ins/youtube-data-api.js';
import type { FreshDatabase } from '../support/postgres-suite.js';
import { filesHolding, storedRows, storedRowsInPostgres, tablesHoldingInPostgres, type StoredTable } from '../support/stored-rows.js';
import { VIDEO_LISTS } from './fixtures.js';

export interface ContractHarness {
  readonly kind: 'local' | 'remote';
  readonly assistant: Assistant;
  /** Creates a guru on the serving side and returns its slug; the assistant reaches it from then on. */
  createGuru(slug: string, name?: string): Promise<string>;
  /** Resolves once the serving side has processed every queued data source. */
  whenIdle(): Promise<void>;
  /** Sets the serving side's idea of now. */
  setClock(at: Date): void;
  /** The serving side's durable store. */
  readonly store: 'sqlite' | 'postgres';
  /** Rows the serving side holds in one of its tables: what a call stored. */
  storedRows(table: StoredTable): Promise<number>;
  /**
   * Where the serving side keeps bytes containing `text` (UTF-8): the files of its data directory,
   * and on PostgreSQL also the tables with a row holding it.
   */
  filesHolding(text: string): Promise<string[]>;
  /** The YouTube Data API the serving engine reads channels and playlists from (fixtures: VIDEO_LISTS). */
  readonly youtubeDataApi: YouTubeDataApiStandIn;
  /** The speech provider (text-to-speech v2) of the serving engine. */
  readonly speechProvider: SpeechStandIn;
  /** The operator lets a guru speak through the speech provider, on the serving side. */
  enableProviderSpeech(slug: string): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Leave the serving engine without a YouTube Data API key, as a deployment that has not set one. */
  readonly withoutYouTubeApiKey?: boolean;
}

export type OpenHarness = (options?: HarnessOptions) => Promise<ContractHarness>;

/** Where the serving engine keeps its durable data: SQLite in its data directory, or a fresh PostgreSQL database. */
export interface HarnessStore {
  /** A PostgreSQL database of its own for each engine (test/support/postgres-suite.ts); SQLite without it. */
  readonly freshDatabase?: () => Promise<FreshDatabase>;
}

/** A data directory and an engine whose clock the test moves, reading video lists from a stand-in. */
async function openEngine(prefix: string, options: HarnessOptions, store: HarnessStore) {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const database = await store.freshDatabase?.();
  const databaseUrl = database?.url;
  let now = new Date('2026-11-20T12:00:00Z');
  const youtubeDataApi = await startYouTubeDataApiStandIn(VIDEO_LISTS);
  const youtubeApi = { baseUrl: youtubeDataApi.baseUrl, ...(options.withoutYouTubeApiKey ? {} : { apiKey: youtubeDataApi.apiKey }) };
  const speechProvider = await startSpeechStandIn();
  // The suite's web pages and the stand-ins are served on 127.0.0.1.
  const engine = await LocalEngine.open({
    dataDir,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    clock: () => now,
    allowPrivateNetwork: true,
    youtubeApi,
    speechProvider: { baseUrl: speechProvider.baseUrl, model: 'tts-1', voice: 'alloy' },
  });
  return {
    dataDir,
    engine,
    store: databaseUrl === undefined ? ('sqlite' as const) : ('postgres' as const),
    storedRows: async (table: StoredTable) => (databaseUrl === undefined ? storedRows(dataDir, table) : storedRowsInPostgres(databaseUrl, table)),
    filesHolding: async (text: string) => [
      ...filesHolding(dataDir, text),
      ...(databaseUrl === undefined ? [] : (await tablesHoldingInPostgres(databaseUrl, text)).map((table) => `table ${table}`)),
    ],
    youtubeDataApi,
    speechProvider,
    enableProviderSpeech: async (slug: string) => void (await engine.updateGuruSettings(slug, { speech_provider: true })),
    setClock: (at: Date) => {
      now = at;
    },
    async close() {
      await engine.close();
      await youtubeDataApi.close();
      await speechProvider.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The local engine called directly, on SQLite (by default) or on PostgreSQL. */
export const localHarness =
  (store: HarnessStore = {}): OpenHarness =>
  async (options = {}) => {
  const { engine, store: kind, storedRows, filesHolding, setClock, youtubeDataApi, speechProvider, enableProviderSpeech, close } = await openEngine('guru-contract-local-', options, store);
  return {
    kind: 'local',
    store: kind,
    assistant: engine,
    createGuru: async (slug, name) => (await engine.createGuru({ slug, ...(name === undefined ? {} : { name }) })).slug,
    whenIdle: () => engine.whenIdle(),
    setClock,
    storedRows,
    filesHolding,
    youtubeDataApi,
    speechProvider,
    enableProviderSpeech,
    close,
  };
};

export const openLocalHarness: OpenHarness = localHarness();

export const openRemoteHarness: OpenHarness = async (options = {}) => {
  const { dataDir, engine, store, storedRows, filesHolding, setClock, youtubeDataApi, speechProvider, enableProviderSpeech, close } = await openEngine('guru-contract-remote-', options, {});
  const server = await startHttpServer({
    backend: { kind: 'local', assistant: engine, admin: engine },
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    limiter: await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 0 }), silentLogger),
  });
  // Over REST a key reaches only its own guru, so every call carries the key of
  // the guru it names. A guru without a key here (one that does not exist) gets
  // the first guru's key, as a deployment configured with one key would send,
  // and the service answers that the guru does not exist; so do calls of no guru
  // (video lists), which any valid key may make.
  const keys = new Map<string, string>();
  const assistant = new RemoteAssistant({
    baseUrl: `${server.url}/api/v1`,
    apiKey: (guru) => (guru === undefined ? undefined : keys.get(guru)) ?? keys.values().next().value ?? 'no-guru-yet',
  });
  return {
    kind: 'remote',
    store,
    assistant,
    async createGuru(slug, name) {
      const created = await engine.createGuru({ slug, ...(name === undefined ? {} : { name }) });
      keys.set(created.slug, created.api_key);
      return created.slug;
    },
    whenIdle: () => engine.whenIdle(),
    setClock,
    storedRows,
    filesHolding,
    youtubeDataApi,
    speechProvider,
    enableProviderSpeech,
    async close() {
      await assistant.close();
      await server.close();
      await close();
    },
  };
};
