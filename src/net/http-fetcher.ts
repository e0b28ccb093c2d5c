/**
 * HttpFetcher: the GETs of ingestion and integrations. It follows redirects itself so that every
 * hop is checked against the address policy, caps the body while it streams, decodes text by its
 * charset, and turns every failure into a FetchFailure that says what happened, whether a retry
 * may help, and what to do. undici is loaded on the first fetch, not when this module is imported.
 */
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Agent, Dispatcher } from 'undici';
import { BlockedAddressError, literalAddress, refusalMessage, restrictedKind } from './address-policy.js';
import { decodeBody } from './charset.js';

export interface FetchPolicy {
  /** false: refuse loopback, private, link-local, CGNAT, multicast, unspecified (v4 and v6, incl. IPv4-mapped v6). */
  readonly allowPrivateNetwork: boolean;
  /**
   * Host names or IP addresses (as in URL.hostname) reachable whatever they resolve to, when
   * private networks are otherwise refused: e.g. the base URL of an integration an administrator
   * configured. Matching is exact and case-insensitive; redirects elsewhere are still checked.
   */
  readonly trustedHosts?: readonly string[];
  /** Default `guru-mcp/<version>`. */
  readonly userAgent?: string;
  /** Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** From sending the request to the end of the response headers; default 15 s. */
  readonly headersTimeoutMs?: number;
  /** From the end of the headers to the end of the body; default 30 s. */
  readonly bodyTimeoutMs?: number;
  /** Default 10 MiB, counted after content decoding. */
  readonly maxBytes?: number;
  /** Default 5. */
  readonly maxRedirects?: number;
}

export interface FetchOptions {
  /** e.g. Authorization for integrations; dropped when a redirect leaves the origin. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly accept?: string;
  /** Aborting rejects with the signal's reason, not with a FetchFailure. */
  readonly signal?: AbortSignal;
  readonly maxBytes?: number;
  /**
   * MIME types accepted ('' for none declared); a response of another type fails with
   * 'unsupported_content' before its body is read.
   */
  readonly mimeTypes?: readonly string[];
  /**
   * Asked before each redirect is followed (after the address checks); false stops there and get()
   * fails with 'redirect_refused' without requesting the target. The crawler keeps to its prefix so.
   */
  readonly followRedirect?: (to: URL, from: URL) => boolean;
}

export interface FetchedResponse {
  /** Final URL after redirects. */
  readonly url: string;
  /** 2xx only; other statuses throw. */
  readonly status: number;
  /** Lower-case, no parameters ('' if absent). */
  readonly mimeType: string;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Decoded: byte order mark, else header charset, else <meta charset> for HTML, else UTF-8. */
  text(): string;
  /** Parsed body; FetchFailure 'bad_response' if not JSON. */
  json(): unknown;
}

export type FetchFailureKind =
  | 'bad_url'
  | 'blocked_address'
  | 'network'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'redirect_refused'
  | 'http_status'
  | 'unsupported_content'
  | 'bad_response';

export interface FetchFailureDetails {
  readonly status?: number;
  /** Defaults by kind: network and timeout yes, http_status for 429 and 5xx, the rest no. */
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
  /** http_status: the start of the response body. */
  readonly body?: string;
  readonly cause?: unknown;
}

export class FetchFailure extends Error {
  readonly kind: FetchFailureKind;
  readonly status?: number;
  readonly url: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  /**
   * http_status only: the start of the response body (at most 16 KiB, as UTF-8 text), for APIs
   * that explain a refusal there (e.g. Google's `{"error": {"errors": [{"reason": …}]}}`).
   */
  readonly body?: string;

  constructor(kind: FetchFailureKind, url: string, message: string, details: FetchFailureDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'FetchFailure';
    this.kind = kind;
    this.url = url;
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    if (details.body !== undefined) this.body = details.body;
    this.retryable = details.retryable ?? defaultRetryable(kind, details.status);
  }
}

function defaultRetryable(kind: FetchFailureKind, status: number | undefined): boolean {
  if (kind === 'network' || kind === 'timeout') return true;
  return kind === 'http_status' && status !== undefined && (status === 429 || status >= 500);
}

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 30_000,
  maxBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
} as const;

/** How much of a refused response's body a FetchFailure keeps. */
const REFUSAL_BODY_BYTES = 16 * 1024;

/** Like browsers: enough for a crawl's parallelism, few enough not to hammer one site. */
const CONNECTIONS_PER_ORIGIN = 6;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Headers that carry the caller's identity; they never follow a redirect to another origin. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

type ResponseData = Dispatcher.ResponseData;

export class HttpFetcher {
  readonly #policy: Required<FetchPolicy>;
  #agent: Promise<Agent> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(policy: FetchPolicy) {
    this.#policy = {
      allowPrivateNetwork: policy.allowPrivateNetwork,
      trustedHosts: (policy.trustedHosts ?? []).map((host) => host.toLowerCase()),
      userAgent: policy.userAgent ?? `guru-mcp/${version}`,
      connectTimeoutMs: policy.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
      headersTimeoutMs: policy.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs,
      bodyTimeoutMs: policy.bodyTimeoutMs ?? DEFAULTS.bodyTimeoutMs,
      maxBytes: policy.maxBytes ?? DEFAULTS.maxBytes,
      maxRedirects: policy.maxRedirects ?? DEFAULTS.maxRedirects,
    };
  }

  async get(input: string | URL, options: FetchOptions = {}): Promise<FetchedResponse> {
    return this.#fetch('GET', input, options, undefined);
  }

  /**
   * Sends `body` (JSON or text, with its content-type among the headers) under the same policy as
   * `get`. A redirect is not followed: it would need the body sent again somewhere else.
   */
  async post(input: string | URL, body: string, options: FetchOptions = {}): Promise<FetchedResponse> {
    return this.#fetch('POST', input, options, body);
  }

  async #fetch(method: 'GET' | 'POST', input: string | URL, options: FetchOptions, requestBody: string | undefined): Promise<FetchedResponse> {
    if (this.#closed) throw new Error(`HttpFetcher.${method.toLowerCase()} after close()`);
    const { signal } = options;
    signal?.throwIfAborted();
    const maxBytes = options.maxBytes ?? this.#policy.maxBytes;
    let url = this.#checkedUrl(input, undefined);
    let headers: Record<string, string> = {
      'user-agent': this.#policy.userAgent,
      accept: options.accept ?? '*/*',
      'accept-encoding': 'gzip, br',
      ...lowerCaseKeys(options.headers ?? {}),
    };
    for (let redirects = 0; ; redirects += 1) {
      const deadline = new AbortController();
      const response = await this.#request(method, url, headers, requestBody, signal, deadline.signal);
      const { statusCode } = response;
      const location = headerValue(response.headers, 'location');
      if (REDIRECTS.has(statusCode) && location !== undefined) {
        await discard(response);
        if (method !== 'GET') {
          throw new FetchFailure('redirect_refused', url.href, `${display(url)} redirects a ${method} elsewhere, which is not followed`, { status: statusCode });
        }
        if (redirects >= this.#policy.maxRedirects) {
          throw new FetchFailure(
            'too_many_redirects',
            url.href,
            `${display(input)} redirected more than ${this.#policy.maxRedirects} times (last to ${display(url)}); use the final address instead`,
          );
        }
        const next = this.#checkedUrl(location, url);
        if (options.followRedirect && !options.followRedirect(next, url)) {
          throw new FetchFailure('redirect_refused', url.href, `${display(url)} redirects to ${display(next)}, which was not followed`, { status: statusCode });
        }
        if (next.origin !== url.origin) headers = withoutCredentials(headers);
        url = next;
        continue;
      }
      if (statusCode < 200 || statusCode > 299) {
        const body = await refusalBody(url, response);
        throw statusFailure(url, statusCode, response.headers, body);
      }
      const headersOfResponse = flatten(response.headers);
      const mimeType = mimeTypeOf(headersOfResponse);
      if (options.mimeTypes && !options.mimeTypes.includes(mimeType)) {
        abandon(response.body);
        throw unsupportedContent(url, mimeType, options.mimeTypes);
      }
      const body = await this.#readBody(url, response, maxBytes, signal, deadline);
      return new Fetched(url.href, statusCode, headersOfResponse, body);
    }
  }

  /** Refuses new fetches and closes the connections once the fetches under way are done. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.#agent?.then((agent) => agent.close()) ?? Promise.resolve();
    return this.#closing;
  }

  /** A URL this fetcher may request: http(s), and not an IP literal the policy refuses. */
  #checkedUrl(input: string | URL, base: URL | undefined): URL {
    let url: URL;
    try {
      url = new URL(input, base);
    } catch (error) {
      throw new FetchFailure('bad_url', String(input), `${String(input)} is not a valid URL`, { cause: error });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      const what = base === undefined ? '' : ` (redirected from ${display(base)})`;
      throw new FetchFailure('bad_url', url.href, `${display(url)}${what} is not an http(s) URL; only http:// and https:// can be fetched`);
    }
    url.hash = '';
    if (!this.#policy.allowPrivateNetwork && !this.#policy.trustedHosts.includes(url.hostname)) {
      const address = literalAddress(url.hostname);
      const kind = address === undefined ? undefined : restrictedKind(address);
      if (address !== undefined && kind !== undefined) {
        throw new FetchFailure('blocked_address', url.href, refusalMessage(address, kind));
      }
    }
    return url;
  }

  #dispatcher(): Promise<Agent> {
    this.#agent ??= import('./agent.js').then(({ createAgent }) =>
      createAgent({
        allowPrivateNetwork: this.#policy.allowPrivateNetwork,
        trustedHosts: this.#policy.trustedHosts,
        connectTimeoutMs: this.#policy.connectTimeoutMs,
        headersTimeoutMs: this.#policy.headersTimeoutMs,
        bodyTimeoutMs: this.#policy.bodyTimeoutMs,
        connectionsPerOrigin: CONNECTIONS_PER_ORIGIN,
      }),
    );
    return this.#agent;
  }

  async #request(
    method: 'GET' | 'POST',
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
    deadline: AbortSignal,
  ): Promise<ResponseData> {
    const agent = await this.#dispatcher();
    try {
      return await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: signal === undefined ? deadline : AbortSignal.any([signal, deadline]),
      });
    } catch (error) {
      throw this.#transportFailure(error, url, signal, 'headers');
    }
  }

  /** The whole body, decoded from its content encoding, within the size cap and the body deadline. */
  async #readBody(url: URL, response: ResponseData, maxBytes: number, signal: AbortSignal | undefined, deadline: AbortController): Promise<Buffer> {
    const declared = Number(headerValue(response.headers, 'content-length') ?? Number.NaN);
    if (declared > maxBytes) {
      abandon(response.body);
      throw tooLarge(url, maxBytes, 'declares');
    }
    const timer = setTimeout(() => deadline.abort(), this.#policy.bodyTimeoutMs);
    let source: Readable = response.body;
    try {
      source = decoded(url, response);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of source) {
        const piece = chunk as Buffer;
        size += piece.length;
        if (size > maxBytes) throw tooLarge(url, maxBytes, 'sends');
        chunks.push(piece);
      }
      return Buffer.concat(chunks, size);
    } catch (error) {
      if (error instanceof FetchFailure) throw error;
      throw this.#transportFailure(error, url, signal, deadline.signal.aborted ? 'body deadline' : 'body');
    } finally {
      clearTimeout(timer);
      abandon(source);
      abandon(response.body);
    }
  }

  #transportFailure(error: unknown, url: URL, signal: AbortSignal | undefined, phase: 'headers' | 'body' | 'body deadline'): unknown {
    if (signal?.aborted) return signal.reason;
    if (error instanceof FetchFailure) return error;
    const blocked = findCause(error, (cause): cause is BlockedAddressError => cause instanceof BlockedAddressError);
    if (blocked) return new FetchFailure('blocked_address', url.href, blocked.message, { cause: blocked });
    const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
    const code = errorCode(error);
    if (phase === 'body deadline' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new FetchFailure('timeout', url.href, `${display(url)} did not send its whole response within ${seconds(this.#policy.bodyTimeoutMs)}; try again later`, { cause: error });
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      return new FetchFailure('timeout', url.href, `${display(url)} did not answer within ${seconds(this.#policy.headersTimeoutMs)}; try again later`, { cause: error });
    }
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
      return new FetchFailure('timeout', url.href, `Could not connect to ${url.host} within ${seconds(this.#policy.connectTimeoutMs)}; check the address, or try again later`, { cause: error });
    }
    return networkFailure(error, code, url);
  }
}

class Fetched implements FetchedResponse {
  readonly mimeType: string;
  #text: string | undefined;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: Buffer,
  ) {
    this.mimeType = mimeTypeOf(headers);
  }

  text(): string {
    this.#text ??= decodeBody(this.body, this.headers['content-type'], this.mimeType);
    return this.#text;
  }

  json(): unknown {
    try {
      return JSON.parse(this.text());
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new FetchFailure('bad_response', this.url, `${display(this.url)} answered ${this.status} with a body that is not JSON (${reason})`, { cause: error });
    }
  }
}

function statusFailure(url: URL, status: number, headers: ResponseData['headers'], body: string | undefined): FetchFailure {
  const answered = `${display(url)} answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
  const retryAfterMs = status === 429 || status === 503 ? retryAfter(headerValue(headers, 'retry-after')) : undefined;
  let advice: string;
  if (retryAfterMs !== undefined) advice = `; try again in ${Math.ceil(retryAfterMs / 1000)} s`;
  else if (status === 429 || status >= 500) advice = '; try again later';
  else if (status === 401 || status === 403) advice = '; check that the page is public, or the credentials';
  else advice = '';
  return new FetchFailure('http_status', url.href, `${answered}${advice}`, {
    status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(body === undefined ? {} : { body }),
  });
}

/** Retry-After as milliseconds from now: delay-seconds or an HTTP date. */
export function retryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function networkFailure(error: unknown, code: string | undefined, url: URL): FetchFailure {
  const detail = error instanceof Error ? error.message : String(error);
  const host = url.hostname;
  switch (code) {
    case 'ENOTFOUND':
      return new FetchFailure('network', url.href, `Could not find the host ${host} (DNS ${code}); check the URL`, { cause: error, retryable: false });
    case 'EAI_AGAIN':
      return new FetchFailure('network', url.href, `Could not resolve ${host} right now (DNS ${code}); try again later`, { cause: error });
    case 'ECONNREFUSED':
      return new FetchFailure('network', url.href, `${url.host} refused the connection (${code}); check the address and that the site is up`, { cause: error });
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return new FetchFailure('network', url.href, `The connection to ${url.host} broke while fetching ${display(url)} (${code}); try again later`, { cause: error });
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return new FetchFailure('network', url.href, `${display(url)} sent a body of another length than it announced; try again later`, { cause: error });
    default:
      // zlib's and brotli's codes: the body is not in the encoding the server named.
      if (code !== undefined && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_FORMAT'))) {
        return new FetchFailure('bad_response', url.href, `${display(url)} sent a body that does not match its Content-Encoding (${detail})`, { cause: error });
      }
      if (code !== undefined && /CERT|TLS|SSL/.test(code)) {
        return new FetchFailure('network', url.href, `${url.host} presented a TLS certificate that cannot be trusted (${code}: ${detail})`, { cause: error, retryable: false });
      }
      return new FetchFailure('network', url.href, `Could not fetch ${display(url)}: ${detail}${code === undefined ? '' : ` (${code})`}; try again later`, { cause: error });
  }
}

function mimeTypeOf(headers: Readonly<Record<string, string>>): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function unsupportedContent(url: URL, mimeType: string, accepted: readonly string[]): FetchFailure {
  const sent = mimeType === '' ? 'sent no Content-Type' : `is ${mimeType}`;
  const names = accepted.filter((type) => type !== '').join(', ');
  return new FetchFailure('unsupported_content', url.href, `${display(url)} ${sent}; only ${names} can be read from here`);
}

function tooLarge(url: URL, maxBytes: number, how: 'declares' | 'sends'): FetchFailure {
  const limit = maxBytes >= 1024 * 1024 ? `${Math.round((maxBytes / 1024 / 1024) * 10) / 10} MiB` : `${Math.ceil(maxBytes / 1024)} KiB`;
  return new FetchFailure('too_large', url.href, `${display(url)} ${how} more than the ${limit} accepted for one response`);
}

/** The body as the server meant it: gunzipped or un-brotlied when it says so. */
function decoded(url: URL, response: ResponseData): Readable {
  const encoding = (headerValue(response.headers, 'content-encoding') ?? 'identity').trim().toLowerCase();
  const ignore = () => {};
  switch (encoding) {
    case 'identity':
    case '':
      return response.body;
    case 'gzip':
    case 'x-gzip':
      return pipeline(response.body, createGunzip(), ignore);
    case 'br':
      return pipeline(response.body, createBrotliDecompress(), ignore);
    case 'deflate':
      return pipeline(response.body, createInflate(), ignore);
    default:
      throw new FetchFailure('bad_response', url.href, `${display(url)} sent its body in the content encoding "${encoding}", which guru-mcp cannot decode`);
  }
}

/** Stops reading a body; undici reports destroying an unfinished one as an error nobody needs. */
function abandon(stream: Readable): void {
  stream.on('error', () => {});
  stream.destroy();
}

/** The start of a refused response's body, decoded; the rest is dropped (closing the connection if there is more). */
async function refusalBody(url: URL, response: ResponseData): Promise<string | undefined> {
  let source: Readable = response.body;
  try {
    source = decoded(url, response);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of source) {
      const piece = chunk as Buffer;
      chunks.push(piece);
      size += piece.length;
      if (size >= REFUSAL_BODY_BYTES) break;
    }
    const text = Buffer.concat(chunks, size).subarray(0, REFUSAL_BODY_BYTES).toString('utf8');
    return text === '' ? undefined : text;
  } catch {
    // A body that cannot be read adds nothing to the status; the failure says what matters.
    return undefined;
  } finally {
    abandon(source);
    abandon(response.body);
  }
}

/** Reads and drops an unwanted body so the connection can be reused (or closes it if the body is large). */
async function discard(response: ResponseData): Promise<void> {
  try {
    await response.body.dump({ limit: 64 * 1024 });
  } catch {
    // The connection is closed instead; nothing to report.
  }
}

function headerValue(headers: ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function flatten(headers: ResponseData['headers']): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}

function lowerCaseKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name)));
}

/** A URL for messages: without user name and password. */
function display(input: string | URL): string {
  try {
    const url = new URL(input);
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return String(input);
  }
}

/** The node or undici code of an error or of one of its causes, e.g. ECONNREFUSED, UND_ERR_SOCKET. */
export function errorCode(error: unknown): string | undefined {
  const coded = findCause(error, (cause): cause is { code: string } => typeof (cause as { code?: unknown }).code === 'string');
  if (coded) return coded.code;
  // Node reports a failed connection to every address of a name as an AggregateError.
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return undefined;
}

function findCause<T>(error: unknown, test: (cause: object) => cause is T & object): T | undefined {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 5; depth += 1) {
    if (test(cause)) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
