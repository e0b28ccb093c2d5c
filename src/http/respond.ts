/** Writing JSON responses and the service's error bodies. */
import type { ServerResponse } from 'node:http';
import type { GuruError } from '../core/errors.js';
import { discardRest } from './body.js';

/**
 * Sends `body` as JSON. A response that goes out before its request's body has come in whole
 * (a refusal: too large, no key, no room) says `Connection: close`, and is ended only once the
 * rest of the body has been read and dropped (discardRest): closing while the client still sends
 * would reset the connection, and the client could lose the refusal (EPIPE, ECONNRESET).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendText(res, status, 'application/json', JSON.stringify(body), headers);
}

/** As sendJson, for a text already serialized. */
export function sendText(res: ServerResponse, status: number, contentType: string, text: string, headers: Readonly<Record<string, string>> = {}): void {
  const unread = res.req !== undefined && !res.req.complete;
  res.writeHead(status, {
    ...headers,
    ...(unread ? { connection: 'close' } : {}),
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
  });
  if (!unread) {
    res.end(text);
    return;
  }
  // The whole response is written now (its length is declared), so the client can read it at once.
  res.write(text);
  void discardRest(res.req).then(() => res.end());
}

/** A GuruError as the REST API answers it: its status, its body, Retry-After when throttled. */
export function sendGuruError(res: ServerResponse, error: GuruError): void {
  const headers: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
  sendJson(res, error.status, error.toBody(), headers);
}
