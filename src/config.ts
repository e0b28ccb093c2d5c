/**
 * Every setting, in one schema. Precedence: defaults < config file
 * (`--config FILE` or GURU_CONFIG) < environment < command-line flags.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { GuruSlug, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS_PER_KIND } from './core/schemas.js';
import { parseToolGroups } from './mcp/tool-groups.js';

const Flag = z.union([z.boolean(), z.enum(['1', '0', 'true', 'false', 'yes', 'no', ''])]).transform((value) =>
  typeof value === 'boolean' ? value : value === '1' || value === 'true' || value === 'yes',
);

/** The hosted Gurubase API; a self-hosted Gurubase is http://localhost:8029/api/v1, another `guru-mcp serve` http://HOST:PORT/api/v1. */
export const DEFAULT_API_URL = 'https://api.gurubase.io/api/v1';

/** An http(s) base URL, kept without trailing slashes. */
const BaseUrl = (message: string) =>
  z.url({ protocol: /^https?$/, message }).transform((url) => url.replace(/\/+$/, ''));

/** The YouTube Data API v3, for channel and playlist import. */
export const DEFAULT_YOUTUBE_API_URL = 'https://www.googleapis.com/youtube/v3';

/** The attachment kinds a ceiling may name, as guru settings name them. */
const ATTACHMENT_KINDS = ['images', 'log_files', 'pdf_files'] as const;
export type AttachmentCeiling = Partial<Record<(typeof ATTACHMENT_KINDS)[number], { readonly count: number; readonly max_bytes: number }>>;

/**
 * `images=10x5000000,pdf_files=3x20000000`: per kind, the most files of a question and the
 * largest size in bytes a guru's attachment limits may be set to (`settings --attachment-limit`
 * takes the same KIND=COUNTxBYTES).
 */
const AttachmentCeilingText = z.string().transform((text, context): AttachmentCeiling => {
  const ceiling: Record<string, { count: number; max_bytes: number }> = {};
  for (const part of text.split(',').map((each) => each.trim()).filter((each) => each !== '')) {
    const match = /^([a-z_]+)=(\d+)x(\d+)$/.exec(part);
    const kind = match?.[1] as (typeof ATTACHMENT_KINDS)[number] | undefined;
    const count = Number(match?.[2]);
    const maxBytes = Number(match?.[3]);
    if (match === null || kind === undefined || !ATTACHMENT_KINDS.includes(kind)) {
      context.addIssue({ code: 'custom', message: `takes KIND=COUNTxBYTES separated by commas, KIND one of ${ATTACHMENT_KINDS.join(', ')}, e.g. images=10x5000000; not "${part}"` });
      return z.NEVER;
    }
    if (count > MAX_ATTACHMENTS_PER_KIND || maxBytes < 1 || maxBytes > MAX_ATTACHMENT_BYTES) {
      context.addIssue({ code: 'custom', message: `${part}: at most ${MAX_ATTACHMENTS_PER_KIND} files of 1 to ${MAX_ATTACHMENT_BYTES} bytes` });
      return z.NEVER;
    }
    ceiling[kind] = { count, max_bytes: maxBytes };
  }
  return ceiling;
});

/** `asking,knowledge`: the tool groups of src/mcp/tool-groups.ts, or `all`. */
const ToolGroupsText = z.string().transform((text, context) => {
  try {
    return parseToolGroups(text);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const ApiUrl = BaseUrl(`must be an http:// or https:// URL ending in the API version, e.g. ${DEFAULT_API_URL}`);

export const Config = z
  .object({
    /** Where the database and state files live. */
    dataDir: z.string().min(1),
    /** Guru used by tools and commands that name none. */
    defaultGuru: GuruSlug.optional(),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.coerce.number().int().min(0).max(65535).default(8787),
    /**
     * The URL clients reach `serve` at, e.g. https://guru.example.com (behind a proxy,
     * with any path prefix). Absolute links in responses use it; without it they are relative.
     */
    publicUrl: BaseUrl('must be an http:// or https:// URL, e.g. https://guru.example.com').optional(),
    /** Let fetchers reach loopback and private addresses (refused by default). */
    allowPrivateNetwork: Flag.default(false),
    /** Worker threads that turn web pages and documents into Markdown; by default one per core, at a lower priority than serving. */
    extractionThreads: z.coerce.number().int().min(1).max(64).optional(),
    /**
     * Redis (redis:// or rediss://, e.g. redis://:PASSWORD@host:6379/0) for the short-lived state
     * (rate-limit windows, answer progress) that processes on several machines share; without it,
     * `<dataDir>/state.sqlite`. Never logged with its password.
     */
    redisUrl: z.url({ protocol: /^rediss?$/, message: 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379/0' }).optional(),
    /**
     * PostgreSQL 15+ (postgres:// or postgresql://, e.g. postgresql://guru:PASSWORD@host:5432/guru)
     * for the durable store that processes on several machines share; without it,
     * `<dataDir>/guru.sqlite`. Never logged with its password.
     */
    databaseUrl: z
      .url({ protocol: /^postgres(ql)?$/, message: 'must be a postgres:// or postgresql:// URL, e.g. postgresql://guru:PASSWORD@127.0.0.1:5432/guru' })
      .optional(),
    /** REST requests per minute per guru and end user; 0 turns the limit off. */
    rateLimitPerMinute: z.coerce.number().int().min(0).default(120),
    /** Require a guru API key (bearer token) on `/mcp` of a loopback binding too; other bindings always require one. */
    mcpRequireKey: Flag.default(false),
    /** The groups of MCP tools (and their resources) clients are offered; every group unless set. */
    tools: ToolGroupsText.optional(),
    logLevel: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
    /** `local`: the embedded engine; `remote`: the service's REST API at `apiUrl`. */
    backend: z.enum(['local', 'remote']).default('local'),
    /** Base URL of the REST API the remote backend talks to, version segment included. */
    apiUrl: ApiUrl.default(DEFAULT_API_URL),
    /** The remote backend's `x-api-key`. Never a command-line flag: flags show in process lists. */
    apiKey: z.string().trim().min(1).optional(),
    /** An OpenAI-compatible API root (`POST {url}/embeddings`); with it, search is hybrid. */
    embeddingsUrl: BaseUrl('must be an http:// or https:// API root, e.g. https://api.openai.com/v1 or http://localhost:11434/v1').optional(),
    /** The embedding model's name at `embeddingsUrl`. */
    embeddingsModel: z.string().trim().min(1).optional(),
    /** Sent as a bearer token to `embeddingsUrl`. Never a command-line flag, never logged. */
    embeddingsApiKey: z.string().trim().min(1).optional(),
    /** An OpenAI-compatible API root (`POST {url}/chat/completions`), usually ending in /v1: the language model of answers. */
    llmUrl: BaseUrl('must be an http:// or https:// API root, e.g. https://api.openai.com/v1 or http://localhost:11434/v1').optional(),
    /** The chat model's name at `llmUrl`. */
    llmModel: z.string().trim().min(1).optional(),
    /** Sent as a bearer token to `llmUrl`. Never a command-line flag, never logged. */
    llmApiKey: z.string().trim().min(1).optional(),
    /**
     * `llmModel` reads images: the images of a question go to it with the question. Opt-in, since
     * many OpenAI-compatible models take text only and refuse a request that carries an image.
     */
    llmImages: Flag.default(false),
    /** Milliseconds the model may take to reword a question in the documentation's vocabulary before the search; 0 turns the step off. */
    llmRewriteTimeoutMs: z.coerce.number().int().min(0).max(60_000).default(2_500),
    /** Milliseconds the model may take to pick the passages that answer before generation; 0 turns the step off. */
    llmPickTimeoutMs: z.coerce.number().int().min(0).max(60_000).default(4_000),
    /** An OpenAI-compatible API root (`POST {url}/audio/speech`): text-to-speech version 2, for the gurus the operator enables. */
    ttsUrl: BaseUrl('must be an http:// or https:// API root, e.g. https://api.openai.com/v1').optional(),
    /** The speech model's name at `ttsUrl`. */
    ttsModel: z.string().trim().min(1).optional(),
    /** The voice of `ttsModel`. */
    ttsVoice: z.string().trim().min(1).default('alloy'),
    /** Sent as a bearer token to `ttsUrl`. Never a command-line flag, never logged. */
    ttsApiKey: z.string().trim().min(1).optional(),
    /** Texts one key (on MCP and the CLI, one guru) has read aloud by the offline voice at once; 2 unless set. */
    speechStreamsPerKey: z.coerce.number().int().min(1).max(64).optional(),
    /** Texts read aloud by the offline voice at once, all callers together; by default one per core, at least 2. */
    speechStreams: z.coerce.number().int().min(1).max(256).optional(),
    /** Where YouTube requests go instead of https://www.youtube.com: a proxy, or a test stand-in. */
    youtubeUrl: BaseUrl('must be an http:// or https:// URL standing in for https://www.youtube.com').optional(),
    /** A Google Cloud API key with the YouTube Data API v3 enabled, for channel and playlist import. Never a command-line flag, never logged. */
    youtubeApiKey: z
      .string()
      .trim()
      .min(1, 'must not be blank: an API key of a Google Cloud project with the YouTube Data API v3 enabled')
      .optional(),
    /** Where YouTube Data API requests go instead of DEFAULT_YOUTUBE_API_URL: a proxy, or a test stand-in. */
    youtubeApiUrl: BaseUrl(`must be an http:// or https:// URL of the YouTube Data API v3, e.g. ${DEFAULT_YOUTUBE_API_URL}`).default(
      DEFAULT_YOUTUBE_API_URL,
    ),
    /**
     * The most a guru's attachment limits may be set to, per kind (AttachmentCeilingText); kinds
     * not named keep the default limits as their ceiling. Settings above it are refused, and
     * stored ones above it (from before it was lowered) are taken at the ceiling.
     */
    attachmentCeiling: AttachmentCeilingText.optional(),
    /**
     * MiB of request bodies the server holds at once, across requests (those of routes that take
     * over 256 KiB). A body that does not fit waits for room (up to 30 s), then is refused with 503
     * and Retry-After. 160: two asks at the default attachment limits' maximum.
     */
    bodyBudgetMb: z.coerce.number().int().min(1).max(1024 * 1024).default(160),
  })
  .superRefine((config, context) => {
    const requireBoth = (url: 'embeddingsUrl' | 'llmUrl' | 'ttsUrl', model: 'embeddingsModel' | 'llmModel' | 'ttsModel', theModel: string) => {
      if (config[url] !== undefined && config[model] === undefined) {
        context.addIssue({
          code: 'custom',
          path: [model],
          message: `required when ${ENVIRONMENT[url]} is set: ${theModel}`,
        });
      }
      if (config[url] === undefined && config[model] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [url],
          message: `required when ${ENVIRONMENT[model]} is set: the OpenAI-compatible API root serving it, e.g. https://api.openai.com/v1`,
        });
      }
    };
    requireBoth('embeddingsUrl', 'embeddingsModel', 'the embedding model to use there, e.g. text-embedding-3-small or nomic-embed-text');
    requireBoth('llmUrl', 'llmModel', 'the chat model to use there, e.g. gpt-4o-mini or llama3.2');
    requireBoth('ttsUrl', 'ttsModel', 'the speech model to use there, e.g. gpt-4o-mini-tts or tts-1');
    if (config.backend === 'remote' && config.apiKey === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['apiKey'],
        message: 'required when the backend is remote (GURU_BACKEND=remote): an API key of the guru on GURU_API_URL',
      });
    }
  });
export type Config = z.infer<typeof Config>;
export type ConfigInput = z.input<typeof Config>;

/** Environment variable of each setting. */
export const ENVIRONMENT: Readonly<Record<keyof Config, string>> = {
  dataDir: 'GURU_DATA_DIR',
  defaultGuru: 'GURU_DEFAULT_GURU',
  host: 'GURU_HOST',
  port: 'GURU_PORT',
  publicUrl: 'GURU_PUBLIC_URL',
  allowPrivateNetwork: 'GURU_ALLOW_PRIVATE_NETWORK',
  extractionThreads: 'GURU_EXTRACTION_THREADS',
  redisUrl: 'GURU_REDIS_URL',
  databaseUrl: 'GURU_DATABASE_URL',
  rateLimitPerMinute: 'GURU_RATE_LIMIT_PER_MINUTE',
  mcpRequireKey: 'GURU_MCP_REQUIRE_KEY',
  tools: 'GURU_TOOLS',
  logLevel: 'GURU_LOG_LEVEL',
  backend: 'GURU_BACKEND',
  apiUrl: 'GURU_API_URL',
  apiKey: 'GURU_API_KEY',
  embeddingsUrl: 'GURU_EMBEDDINGS_URL',
  embeddingsModel: 'GURU_EMBEDDINGS_MODEL',
  embeddingsApiKey: 'GURU_EMBEDDINGS_API_KEY',
  llmUrl: 'GURU_LLM_URL',
  llmModel: 'GURU_LLM_MODEL',
  llmApiKey: 'GURU_LLM_API_KEY',
  llmImages: 'GURU_LLM_IMAGES',
  llmRewriteTimeoutMs: 'GURU_LLM_REWRITE_TIMEOUT_MS',
  llmPickTimeoutMs: 'GURU_LLM_PICK_TIMEOUT_MS',
  ttsUrl: 'GURU_TTS_URL',
  ttsModel: 'GURU_TTS_MODEL',
  ttsVoice: 'GURU_TTS_VOICE',
  ttsApiKey: 'GURU_TTS_API_KEY',
  speechStreamsPerKey: 'GURU_SPEECH_STREAMS_PER_KEY',
  speechStreams: 'GURU_SPEECH_STREAMS',
  youtubeUrl: 'GURU_YOUTUBE_URL',
  youtubeApiKey: 'GURU_YOUTUBE_API_KEY',
  youtubeApiUrl: 'GURU_YOUTUBE_API_URL',
  attachmentCeiling: 'GURU_ATTACHMENT_CEILING',
  bodyBudgetMb: 'GURU_BODY_BUDGET_MB',
};

/** The per-user data directory of this platform. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'guru-mcp');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'guru-mcp');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'guru-mcp');
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read the config file ${path}: ${(error as Error).message}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`The config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

function fromEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, name] of Object.entries(ENVIRONMENT)) {
    const value = env[name];
    if (value !== undefined && value !== '') values[key] = value;
  }
  return values;
}

export interface LoadConfigOptions {
  /** Settings from command-line flags (highest precedence). */
  readonly flags?: Partial<ConfigInput>;
  readonly configFile?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const file = options.configFile ?? env.GURU_CONFIG;
  const flags = Object.fromEntries(Object.entries(options.flags ?? {}).filter(([, value]) => value !== undefined));
  const fromFile = file ? readConfigFile(file) : {};
  const fromEnv = fromEnvironment(env);
  const merged = { dataDir: defaultDataDir(env), ...fromFile, ...fromEnv, ...flags };
  /** Where a setting's value came from, for an error the user can act on: the flag, the variable or the file. */
  const origin = (key: keyof Config): string => {
    if (key in flags) return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
    if (key in fromEnv || !(key in fromFile)) return ENVIRONMENT[key] ?? '';
    return `${ENVIRONMENT[key] ? `${ENVIRONMENT[key]}, ` : ''}in ${file}`;
  };
  // Settings are parsed once per process: zod's compiled parsers pay off only on repeated parses, and
  // compiling this schema's took more than the parse itself (about 1 ms of every stdio start-up).
  const result = Config.safeParse(merged, { jitless: true });
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const key = issue.path.join('.') as keyof Config;
      const where = origin(key);
      const source = where === '' ? '' : ` (${where})`;
      return `${key}${source}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid settings:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}
