/** Writing JSON responses and the service's error bodies. */
import type { ServerResponse } from 'node:http';
import type { GuruError } from '../core/errors.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A GuruError as the REST API answers it: its status, its body, Retry-After when throttled. */
export function sendGuruError(res: ServerResponse, error: GuruError): void {
  const headers: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
  sendJson(res, error.status, error.toBody(), headers);
}
