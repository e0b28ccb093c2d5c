/** Reading a request body into memory, within a size cap. */
import type { IncomingMessage } from 'node:http';

export const KiB = 1024;
export const MiB = 1024 * KiB;

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes`);
  }
}

/** A refused body is read and dropped up to this much more, and for this long, before the connection closes. */
export const DISCARD_MAX_BYTES = 64 * MiB;
export const DISCARD_MAX_MS = 30_000;

/**
 * Resolves with the whole body, or rejects with BodyTooLargeError as soon as the
 * declared or received size passes `limit`; the rest is left for the refusal
 * (sendJson) to read and drop. The REST API and the MCP endpoint both read their
 * bodies here.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Reads the rest of a request's body and drops it, so that a response sent before it came
 * in can be read by a client that is still sending: a server that closes with unread data
 * resets the connection. Resolves when the body has ended, the client went away, or after
 * DISCARD_MAX_BYTES or DISCARD_MAX_MS (the connection is then closed regardless).
 */
export function discardRest(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let dropped = 0;
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > DISCARD_MAX_BYTES) done();
    };
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, DISCARD_MAX_MS);
    timer.unref();
    req.on('data', onData);
    req.on('end', done);
    req.on('close', done);
    req.on('error', done);
    req.resume();
  });
}

export type JsonBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

/** An empty body is `undefined`; anything else must be JSON. */
export function parseJsonBody(raw: Buffer): JsonBody {
  if (raw.length === 0) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false, problem: 'Invalid JSON body' };
  }
}
