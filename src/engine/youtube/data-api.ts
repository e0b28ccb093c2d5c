/**
 * The list calls of the YouTube Data API v3, authenticated with an API key in the `key` query
 * parameter as Google documents. 5xx answers, timeouts and broken connections are retried a couple
 * of times. Google's refusals (`{"error": {"code", "message", "errors": [{"reason"}]}}`) become the
 * GuruErrors that say what to fix, except "not found", which only the caller can interpret (an
 * uploads playlist that does not exist is a channel without videos).
 *
 * Fetch failures name the request URL, and that URL carries the key: nothing from them reaches an
 * error message without `redact`, and they are never attached as a cause.
 */
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import type { Operation } from '../../core/errors.js';
import { FetchFailure, type FetchedResponse, type HttpFetcher } from '../../net/http-fetcher.js';
import { secondsUntilQuotaRenewal, YouTubeErrors } from './errors.js';

export type Resource = 'channels' | 'playlistItems';

export interface DataApiOptions {
  readonly apiKey: string;
  /** Ends with a slash, so that resource names resolve under it. */
  readonly baseUrl: URL;
  /** One wait per retry. */
  readonly retryDelaysMs: readonly number[];
  readonly clock: () => Date;
}

/** Google's 404 (or "not accessible") for the thing asked for, with the reasons it gave. */
export class NotFound extends Error {
  readonly reasons: ReadonlySet<string>;

  constructor(reasons: ReadonlySet<string>) {
    super(`not found (${[...reasons].join(', ') || 'no reason given'})`);
    this.name = 'NotFound';
    this.reasons = reasons;
  }
}

/** Longest wait a Retry-After may ask for before a retry; longer ones end the attempts. */
const MAX_RETRY_WAIT_MS = 10_000;
/** Without Retry-After, a rate-limited caller is told to come back after a minute. */
const DEFAULT_RATE_LIMIT_SECONDS = 60;
const GOOGLE_MESSAGE_CHARS = 300;

// Reasons as Google sends them: the classic `errors[].reason` and the newer ErrorInfo `details[].reason`.
const QUOTA = new Set(['quotaExceeded', 'dailyLimitExceeded', 'dailyLimitExceededUnreg']);
const RATE_LIMIT = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'RATE_LIMIT_EXCEEDED']);
const API_DISABLED = new Set(['accessNotConfigured', 'SERVICE_DISABLED']);
const KEY_INVALID = new Set(['keyInvalid', 'keyExpired', 'API_KEY_INVALID', 'API_KEY_EXPIRED']);
const KEY_RESTRICTED = new Set([
  'ipRefererBlocked',
  'API_KEY_HTTP_REFERRER_BLOCKED',
  'API_KEY_IP_ADDRESS_BLOCKED',
  'API_KEY_SERVICE_BLOCKED',
  'API_KEY_ANDROID_APP_BLOCKED',
  'API_KEY_IOS_APP_BLOCKED',
]);
export const NOT_ACCESSIBLE = new Set(['playlistItemsNotAccessible', 'playlistForbidden', 'channelForbidden']);

const GoogleErrorBody = z.object({
  error: z.object({
    code: z.number().optional(),
    message: z.string().optional(),
    errors: z.array(z.object({ reason: z.string().optional(), message: z.string().optional() })).optional(),
    details: z.array(z.object({ reason: z.string().optional() })).optional(),
  }),
});

interface GoogleRefusal {
  readonly message: string;
  readonly reasons: ReadonlySet<string>;
}

export class DataApi {
  readonly #fetcher: HttpFetcher;
  readonly #op: Operation;
  readonly #options: DataApiOptions;

  constructor(fetcher: HttpFetcher, op: Operation, options: DataApiOptions) {
    this.#fetcher = fetcher;
    this.#op = op;
    this.#options = options;
  }

  /** The operation whose errors this instance raises. */
  get op(): Operation {
    return this.#op;
  }

  /** One page of a `list` call; throws a GuruError, a NotFound, or the signal's reason. */
  async list<T>(resource: Resource, params: Readonly<Record<string, string>>, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    const url = new URL(resource, this.#options.baseUrl);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    url.searchParams.set('key', this.#options.apiKey);
    for (let attempt = 0; ; attempt += 1) {
      let response: FetchedResponse;
      try {
        response = await this.#fetcher.get(url, { accept: 'application/json', ...(signal ? { signal } : {}) });
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (!(error instanceof FetchFailure)) throw error;
        const wait = this.#retryWait(error, attempt);
        if (wait === undefined) throw this.#failure(error, attempt + 1);
        await pause(wait, signal);
        continue;
      }
      return this.#parsed(resource, response, schema);
    }
  }

  /** How long to wait before trying again, or undefined when this failure ends the attempts. */
  #retryWait(failure: FetchFailure, attempt: number): number | undefined {
    const delay = this.#options.retryDelaysMs[attempt];
    const transient = failure.kind === 'network' || failure.kind === 'timeout' || (failure.kind === 'http_status' && (failure.status ?? 0) >= 500);
    if (delay === undefined || !transient || !failure.retryable) return undefined;
    const wait = Math.max(delay, failure.retryAfterMs ?? 0);
    return wait > MAX_RETRY_WAIT_MS ? undefined : wait;
  }

  #failure(failure: FetchFailure, attempts: number): Error {
    const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
    switch (failure.kind) {
      case 'http_status':
        return this.#refusal(failure, tries);
      case 'timeout':
        return YouTubeErrors.timedOut(this.#op, `${this.#firstClause(failure.message)}; ${tries}`);
      case 'network':
        return YouTubeErrors.unavailable(this.#op, `${this.#firstClause(failure.message)}; ${tries}`);
      case 'blocked_address':
        return YouTubeErrors.blockedApiUrl(this.#op, this.#redact(failure.message));
      default:
        return YouTubeErrors.unexpectedAnswer(this.#op, this.#firstClause(failure.message));
    }
  }

  #refusal(failure: FetchFailure, tries: string): Error {
    const status = failure.status ?? 0;
    const google = this.#googleRefusal(failure.body);
    const reasons = google?.reasons ?? new Set<string>();
    const said = google?.message ?? `HTTP ${status}`;
    const op = this.#op;
    if (overlaps(reasons, QUOTA)) return YouTubeErrors.quotaExhausted(op, secondsUntilQuotaRenewal(this.#options.clock()));
    if (overlaps(reasons, RATE_LIMIT) || status === 429) {
      const seconds = failure.retryAfterMs === undefined ? DEFAULT_RATE_LIMIT_SECONDS : Math.max(1, Math.ceil(failure.retryAfterMs / 1000));
      return YouTubeErrors.rateLimited(op, seconds);
    }
    if (overlaps(reasons, API_DISABLED)) return YouTubeErrors.apiDisabled(op);
    if (overlaps(reasons, KEY_INVALID) || (status === 400 && /\bAPI key\b/i.test(said))) return YouTubeErrors.keyRejected(op, said);
    if (overlaps(reasons, KEY_RESTRICTED)) return YouTubeErrors.keyRestricted(op, said);
    if (status >= 500) return YouTubeErrors.unavailable(op, `answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd() + `; ${tries}`);
    if (google === undefined) return YouTubeErrors.unexpectedAnswer(op, `HTTP ${status} without a Google error body`);
    if (status === 404 || overlaps(reasons, NOT_ACCESSIBLE)) return new NotFound(reasons);
    if (status === 401 || status === 403) return YouTubeErrors.keyRestricted(op, said);
    return YouTubeErrors.refused(op, said);
  }

  /** Google's message and reasons, when the body is Google's error JSON. */
  #googleRefusal(body: string | undefined): GoogleRefusal | undefined {
    if (body === undefined) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return undefined;
    }
    const parsed = GoogleErrorBody.safeParse(json);
    if (!parsed.success) return undefined;
    const { message, errors = [], details = [] } = parsed.data.error;
    const reasons = new Set([...errors, ...details].flatMap((entry) => (entry.reason === undefined ? [] : [entry.reason])));
    const text = message ?? errors.find((entry) => entry.message !== undefined)?.message ?? 'no message';
    return { message: this.#clean(text), reasons };
  }

  #parsed<T>(resource: Resource, response: FetchedResponse, schema: z.ZodType<T>): T {
    let json: unknown;
    try {
      json = response.json();
    } catch {
      return this.#unexpected(`${resource} answered ${response.status} with a body that is not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      return this.#unexpected(`${resource} answered JSON of another shape${where}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data;
  }

  #unexpected(detail: string): never {
    throw YouTubeErrors.unexpectedAnswer(this.#op, detail);
  }

  /** A fetch failure's "what happened", without its advice, and its URLs without their query (and so the key). */
  #firstClause(message: string): string {
    const happened = message.split('; ')[0] ?? message;
    return this.#redact(happened.replace(/(https?:\/\/[^\s?#]+)[?#]\S*/g, '$1'));
  }

  /** Google's text for a message: no markup (its quota message links "quota"), short, no key. */
  #clean(text: string): string {
    const plain = text.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim().replace(/\.$/, '');
    const short = plain.length > GOOGLE_MESSAGE_CHARS ? `${plain.slice(0, GOOGLE_MESSAGE_CHARS - 1)}…` : plain;
    return this.#redact(short);
  }

  #redact(text: string): string {
    const key = this.#options.apiKey;
    return [key, encodeURIComponent(key)].reduce((result, form) => result.split(form).join('***'), text);
  }
}

function overlaps(reasons: ReadonlySet<string>, known: ReadonlySet<string>): boolean {
  for (const reason of reasons) if (known.has(reason)) return true;
  return false;
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}
