/**
 * The one place that wires a backend, and the REST rate limit, together from
 * the settings. Transports receive the results and never import a backend's
 * internals or open state stores themselves. Everything is loaded on demand so
 * that a command pays only for what it uses: the local path never loads the
 * remote adapter, the remote path never opens SQLite, and no limit loads no store.
 */
import type { Backend } from './core/assistant.js';
import { Errors } from './core/errors.js';
import type { Config } from './config.js';
import { describeError, type Logger } from './log.js';
import type { ChatSettings } from './providers/chat.js';
import type { EmbeddingsSettings } from './providers/embeddings.js';
import type { RateDecision, RateLimiter } from './state/rate-limiter.js';

export interface OpenedBackend extends Backend {
  close(): Promise<void>;
}

export interface BackendOptions {
  /** Work through the queue of sources to process (local engine; default true). */
  readonly processing?: boolean;
}

export async function openBackend(config: Config, logger: Logger, options: BackendOptions = {}): Promise<OpenedBackend> {
  if (config.backend === 'remote') return openRemote(config, logger);
  const { LocalEngine } = await import('./engine/local-engine.js');
  const embeddings = embeddingsOf(config);
  if (embeddings) logger.info('embeddings provider', { url: withoutCredentials(embeddings.baseUrl), model: embeddings.model });
  const llm = llmOf(config);
  // Which model steps run is stated at start-up: each can be turned off (a timeout of 0).
  if (llm) {
    logger.info('language model', {
      url: withoutCredentials(llm.baseUrl),
      model: llm.model,
      rewriteTimeoutMs: config.llmRewriteTimeoutMs,
      pickTimeoutMs: config.llmPickTimeoutMs,
    });
  }
  const engine = await LocalEngine.open({
    dataDir: config.dataDir,
    ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
    ...(config.redisUrl === undefined ? {} : { redisUrl: config.redisUrl }),
    logger,
    allowPrivateNetwork: config.allowPrivateNetwork,
    processQueue: options.processing ?? true,
    ...(config.extractionThreads === undefined ? {} : { extraction: { threads: config.extractionThreads } }),
    ...(embeddings === undefined ? {} : { embeddings }),
    ...(llm === undefined ? {} : { llm, modelSteps: { rewriteTimeoutMs: config.llmRewriteTimeoutMs, pickTimeoutMs: config.llmPickTimeoutMs } }),
    ...(config.ttsUrl === undefined || config.ttsModel === undefined
      ? {}
      : {
          speechProvider: {
            baseUrl: config.ttsUrl,
            model: config.ttsModel,
            voice: config.ttsVoice,
            ...(config.ttsApiKey === undefined ? {} : { apiKey: config.ttsApiKey }),
          },
        }),
    speechStreams: {
      ...(config.speechStreamsPerKey === undefined ? {} : { perCaller: config.speechStreamsPerKey }),
      ...(config.speechStreams === undefined ? {} : { total: config.speechStreams }),
    },
    ...(config.youtubeUrl === undefined ? {} : { youtubeBaseUrl: config.youtubeUrl }),
    ...(config.attachmentCeiling === undefined ? {} : { attachmentCeiling: config.attachmentCeiling }),
    youtubeApi: { baseUrl: config.youtubeApiUrl, ...(config.youtubeApiKey === undefined ? {} : { apiKey: config.youtubeApiKey }) },
  });
  return {
    kind: 'local',
    assistant: engine,
    admin: engine,
    defaultGuru: config.defaultGuru,
    close: () => engine.close(),
  };
}

/** What `guru-mcp migrate` copied: each table with its rows. */
export interface MigratedStore {
  readonly tables: readonly { readonly table: string; readonly rows: number }[];
}

/**
 * Copies the data directory's embedded store into the PostgreSQL database of the settings
 * (GURU_DATABASE_URL), which must hold no guru yet; the data directory is only read.
 */
export async function migrateToPostgres(
  config: Config,
  logger: Logger,
  options: { readonly onProgress?: (copied: number, total: number) => void } = {},
): Promise<MigratedStore> {
  if (config.databaseUrl === undefined) {
    throw new Error('migrate copies into PostgreSQL: set GURU_DATABASE_URL (or --database-url) to the database to copy into');
  }
  const { migrateDataDir } = await import('./engine/store/copy-to-postgres.js');
  const tables = await migrateDataDir(
    { dataDir: config.dataDir, databaseUrl: config.databaseUrl, logger },
    options.onProgress ? { onProgress: ({ copied, total }) => options.onProgress?.(copied, total) } : {},
  );
  return { tables };
}

/** A backend whose parts open on their first call. */
export interface BackendOnFirstUse extends OpenedBackend {
  /** Opens it now, unless it is open or opening; resolves once open, rejects with the GuruError its calls get. */
  open(): Promise<void>;
  /** Whether a call or `open()` has begun opening it (and it has not failed since). */
  isOpening(): boolean;
}

/**
 * The backend of `openBackend`, opened when a call first needs it (or on `open()`), so that
 * a server can answer what needs no data (the MCP handshake, tools/list) without waiting
 * for the database, its migrations and the engine's modules. What it is (its kind, whether it
 * has guru administration, the default guru) comes from the settings alone. A failed opening
 * is logged and answers each waiting call with a GuruError that says why; the next call tries again.
 */
export function openBackendOnFirstUse(config: Config, logger: Logger, options: BackendOptions = {}): BackendOnFirstUse {
  let opening: Promise<OpenedBackend> | undefined;
  let closed = false;
  const opened = (): Promise<OpenedBackend> => {
    if (closed) return Promise.reject(new Error('the backend is closed'));
    opening ??= openBackend(config, logger, options).catch((error: unknown) => {
      opening = undefined;
      logger.error('backend could not be opened', { dataDir: config.dataDir, error: describeError(error) });
      throw Errors.backendUnavailable(
        describeError(error),
        config.backend === 'remote'
          ? 'See the server log (stderr) for details.'
          : `Its data directory is ${config.dataDir} (--data-dir or GURU_DATA_DIR); this user must be able to create and write it. See the server log (stderr) for details.`,
      );
    });
    return opening;
  };
  const admin = onFirstCall(async () => {
    const { admin } = await opened();
    if (admin === undefined) throw new Error('the opened backend has no guru administration');
    return admin;
  });
  return {
    kind: config.backend,
    assistant: onFirstCall(async () => (await opened()).assistant),
    ...(config.backend === 'local' ? { admin } : {}),
    defaultGuru: config.defaultGuru,
    open: async () => {
      await opened();
    },
    isOpening: () => opening !== undefined,
    close: async () => {
      closed = true;
      const backend = await opening?.catch(() => undefined);
      await backend?.close();
    },
  };
}

/** Methods that all answer with a promise: calls to them can wait for the object to exist. */
type AsyncMethods<T> = { readonly [K in keyof T]: (...args: never[]) => Promise<unknown> };

/** An object standing in for the one `target` resolves to: each method call waits for it, then calls it there. */
function onFirstCall<T extends AsyncMethods<T>>(target: () => Promise<T>): T {
  return new Proxy({} as T, {
    get: (_stub, name) => {
      // Not a thenable: awaiting the stand-in must not start anything.
      if (typeof name === 'symbol' || name === 'then') return undefined;
      return async (...args: unknown[]) => {
        const object: object = await target();
        return Reflect.apply(Reflect.get(object, name) as (...args: unknown[]) => Promise<unknown>, object, args);
      };
    },
  });
}

/** The embeddings endpoint of the settings; the Config schema insists on a model whenever a URL is set. */
function embeddingsOf(config: Config): EmbeddingsSettings | undefined {
  if (config.embeddingsUrl === undefined || config.embeddingsModel === undefined) return undefined;
  return {
    baseUrl: config.embeddingsUrl,
    model: config.embeddingsModel,
    ...(config.embeddingsApiKey === undefined ? {} : { apiKey: config.embeddingsApiKey }),
  };
}

/** The language model of the settings, as settings only: its client loads where answers use it. The schema insists on a model with a URL. */
function llmOf(config: Config): ChatSettings | undefined {
  if (config.llmUrl === undefined || config.llmModel === undefined) return undefined;
  return {
    baseUrl: config.llmUrl,
    model: config.llmModel,
    readsImages: config.llmImages,
    ...(config.llmApiKey === undefined ? {} : { apiKey: config.llmApiKey }),
  };
}

/** A URL fit for logs: without any user:password@ it may carry (or query: a rediss:// URL may carry options there). */
function withoutCredentials(url: string): string {
  // `origin` is "null" for schemes the URL standard does not know, such as redis://.
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname}`;
}

/** The service's REST API at `apiUrl`. It has no guru administration, so the backend has no `admin`. */
async function openRemote(config: Config, logger: Logger): Promise<OpenedBackend> {
  // The Config schema already insists on a key; this keeps a hand-built Config honest too.
  if (config.apiKey === undefined) throw new Error('GURU_API_KEY is required when the backend is remote');
  const { RemoteAssistant } = await import('./remote/remote-assistant.js');
  const assistant = new RemoteAssistant({ baseUrl: config.apiUrl, apiKey: config.apiKey, logger });
  logger.info('remote backend', { url: withoutCredentials(config.apiUrl) });
  return {
    kind: 'remote',
    assistant,
    defaultGuru: config.defaultGuru,
    close: () => assistant.close(),
  };
}

export interface OpenedRateLimiter extends RateLimiter {
  close(): Promise<void>;
}

const NO_LIMIT: RateDecision = { allowed: true };

/**
 * The rate limit of the settings (REST, /mcp over HTTP and the web interface share it), its windows
 * kept in the state store (the data directory's, or Redis) so that instances share them, end users
 * named there by a hash keyed with the directory's secret. At 0 there is no limit, and neither the
 * store nor the limiter is loaded.
 */
export async function openRateLimiter(config: Config, logger: Logger): Promise<OpenedRateLimiter> {
  if (config.rateLimitPerMinute === 0) return { consume: async () => NO_LIMIT, forget: async () => {}, close: async () => {} };
  const [{ openStateStore }, { createRateLimiter, rateLimitIdKey, RATE_LIMIT_NAMESPACE }] = await Promise.all([
    import('./state/keyv.js'),
    import('./state/rate-limiter.js'),
  ]);
  const idKey = rateLimitIdKey(config.dataDir);
  const store = await openStateStore(config, RATE_LIMIT_NAMESPACE, logger);
  if (config.redisUrl !== undefined) logger.info('rate-limit windows in Redis', { url: withoutCredentials(config.redisUrl) });
  const limiter = createRateLimiter({ store, limitPerMinute: config.rateLimitPerMinute, idKey });
  return { consume: (subject) => limiter.consume(subject), forget: (endUser) => limiter.forget(endUser), close: () => store.disconnect() };
}
