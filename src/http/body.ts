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

/**
 * Resolves with the whole body, or rejects with BodyTooLargeError as soon as the
 * declared or received size passes `limit`. After an overflow the rest of the body
 * is drained and dropped, so that the caller can still answer; it answers with
 * `Connection: close`, so that the server stops taking in the rest once the answer
 * is out. The REST API and the MCP endpoint both read their bodies here.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        req.resume();
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
