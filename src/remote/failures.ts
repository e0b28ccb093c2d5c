/**
 * What went wrong with a remote call, as a GuruError. The service's own errors
 * keep their message, status, body field and extra members, so they travel on
 * unchanged (REST in, REST out; MCP shows "Invalid API key"). Everything else
 * (an unreachable host, a proxy's HTML page, a body that does not fit the API)
 * says what happened, where, and what to check. The API key never appears.
 */
import type * as z from 'zod';
import { fieldOf, GuruError, type BodyField } from '../core/errors.js';
import type { Endpoint } from './endpoint.js';
import { throttleSeconds } from './policy.js';

/** Where the calls go and how an endpoint is named in messages. */
export interface ServiceAddress {
  /** The base URL without credentials or trailing slash: `https://api.gurubase.io/api/v1`. */
  readonly base: string;
  /** `POST /api/v1/docs/answer/` */
  name(endpoint: Endpoint): string;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const CHECK_URL = 'Check GURU_API_URL: it must be the base URL of the API, version included (e.g. https://api.gurubase.io/api/v1).';

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The message of a JSON error body and the member it came in: `msg` or `error` (the spec), `detail` (a DRF default). */
function messageOf(body: Record<string, unknown>): { message: string; key: string } | undefined {
  for (const key of ['msg', 'error', 'detail']) {
    const value = body[key];
    if (typeof value === 'string' && value !== '') return { message: value, key };
  }
  return undefined;
}

/** A non-2xx answer of the service as the error it stands for. */
export function serviceError(address: ServiceAddress, endpoint: Endpoint, status: number, headers: Headers, text: string): GuruError {
  const body = parseJson(text);
  const found = isRecord(body) ? messageOf(body) : undefined;
  if (isRecord(body) && found !== undefined) {
    const { [found.key]: _message, ...extras } = body;
    const field: BodyField = found.key === 'msg' || found.key === 'error' ? found.key : fieldOf(endpoint.operation);
    const retryAfterSeconds = status === 429 ? throttleSeconds(found.message, header(headers, 'retry-after')) : undefined;
    return new GuruError({
      message: found.message,
      status,
      field,
      ...(Object.keys(extras).length > 0 ? { body: extras } : {}),
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      ...(status === 401
        ? { hint: `Check GURU_API_KEY: it must be an API key of the guru "${endpoint.guru}" on ${address.base}.` }
        : {}),
    });
  }
  return unexpectedReply(address, endpoint, status, headers, text);
}

/** A reply that is not the API's JSON: a redirect, a proxy's or web server's page, an empty body. */
function unexpectedReply(address: ServiceAddress, endpoint: Endpoint, status: number, headers: Headers, text: string): GuruError {
  const where = `The guru service at ${address.base} answered ${address.name(endpoint)}`;
  const location = header(headers, 'location');
  if (status >= 300 && status < 400) {
    return new GuruError({
      message: `${where} with a redirect (HTTP ${status}${location ? ` to ${location}` : ''})`,
      status: 502,
      field: fieldOf(endpoint.operation),
      hint: `${CHECK_URL} Use the address it redirects to.`,
    });
  }
  const contentType = header(headers, 'content-type') ?? '';
  const what = /html/i.test(contentType) || /^\s*</.test(text) ? 'an HTML page' : text.trim() === '' ? 'an empty body' : 'a body that is not JSON';
  return new GuruError({
    message: `${where} with HTTP ${status} and ${what} instead of the API's JSON`,
    status: status >= 500 ? status : 502,
    field: fieldOf(endpoint.operation),
    hint: status >= 500 ? `The service, or a proxy in front of it, failed; try again later. ${CHECK_URL}` : CHECK_URL,
  });
}

/** A 2xx answer whose body is not JSON at all. */
export function notJson(address: ServiceAddress, endpoint: Endpoint, headers: Headers, text: string): GuruError {
  return unexpectedReply(address, endpoint, 200, headers, text);
}

/** A 2xx answer that does not fit the spec's shape: which endpoint, which fields, what is wrong. */
export function responseMismatch(address: ServiceAddress, endpoint: Endpoint, error: z.ZodError): GuruError {
  const issues = error.issues.slice(0, 3).map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
  if (error.issues.length > 3) issues.push(`and ${error.issues.length - 3} more`);
  return new GuruError({
    message: `The guru service answered ${address.name(endpoint)} with a response that does not fit the API: ${issues.join('; ')}`,
    status: 502,
    field: fieldOf(endpoint.operation),
    hint: `The service at ${address.base} may speak another version of the API. ${CHECK_URL}`,
  });
}

/** `sources[0].link`; `(the body)` for the root. */
function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(the body)';
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** The code of a network failure, also when Node wraps several attempts (IPv4 and IPv6) in an AggregateError. */
function codeOf(error: unknown): string | undefined {
  if (!isRecord(error) && !(error instanceof Error)) return undefined;
  const record = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof record.code === 'string') return record.code;
  if (Array.isArray(record.errors) && record.errors.length > 0) return codeOf(record.errors[0]);
  return record.cause === undefined ? undefined : codeOf(record.cause);
}

function whatHappened(code: string | undefined, error: unknown, timeoutMs: number): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused (nothing listens there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connecting timed out';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return `it did not answer within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`;
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before the answer was complete';
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return 'the response is larger than guru-mcp accepts';
    default:
      if (code !== undefined && /CERT|SSL|TLS/.test(code)) return `the TLS certificate was not accepted (${code})`;
      return error instanceof Error ? error.message : String(error);
  }
}

/** A call that got no usable HTTP answer: refused, unresolvable, timed out, cut off. */
export function networkError(address: ServiceAddress, endpoint: Endpoint, error: unknown, timeoutMs: number): GuruError {
  const code = codeOf(error);
  const timedOut = code !== undefined && TIMEOUT_CODES.has(code);
  return new GuruError({
    message: `Cannot get an answer from the guru service at ${address.base} (${address.name(endpoint)}): ${whatHappened(code, error, timeoutMs)}`,
    status: timedOut ? 504 : 502,
    field: fieldOf(endpoint.operation),
    hint: timedOut
      ? `The service may be overloaded; try again later. ${CHECK_URL}`
      : `Check that the service is running and reachable from this machine. ${CHECK_URL}`,
  });
}
