/**
 * Reading request bodies within a size cap and a budget shared by the requests in flight:
 * JSON parsed as it arrives (json-stream.ts), so that a body is never held whole beside its
 * value, or bytes as they came (an uploaded file). The REST API, the web interface's API and
 * the MCP endpoint read their bodies here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JsonStreamParser } from './json-stream.js';

export const KiB = 1024;
export const MiB = 1024 * KiB;

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes`);
  }
}

/** No room left in the BodyBudget: the caller answers 503 with Retry-After. */
export class BodyBudgetError extends Error {
  override readonly name = 'BodyBudgetError';
  constructor(readonly retryAfterSeconds: number) {
    super('No room for another request body');
  }
}

/** A refused body is read and dropped up to this much more, and for this long, before the connection closes. */
export const DISCARD_MAX_BYTES = 64 * MiB;
export const DISCARD_MAX_MS = 30_000;

/** What a refused request is told to wait before trying again. */
const BUDGET_RETRY_SECONDS = 5;
/** How long a body waits for room before it is refused; how many bodies may wait at once. */
export const BUDGET_WAIT_MS = 30_000;
const MAX_WAITING = 64;

export interface BodyBudgetOptions {
  /** How long a declared body waits for room (BUDGET_WAIT_MS); 0 refuses at once. */
  readonly waitMs?: number;
}

interface Waiter {
  readonly bytes: number;
  readonly admit: () => void;
}

/**
 * Bytes of request bodies held at once across requests (GURU_BODY_BUDGET_MB). A request takes
 * its share before its body is read: its Content-Length when declared, else each piece as it
 * arrives; it gives it back when its response has closed (its body and what was made of it are
 * let go by then). A declared body that does not fit waits for room, in the order they came, up
 * to `waitMs`, and is refused after that (BodyBudgetError: 503 with Retry-After); one sent
 * without its length is refused as soon as a piece does not fit. When nothing else holds any, a
 * body always fits: one larger than the whole budget (within its route's cap) is read alone.
 */
export class BodyBudget {
  readonly #waitMs: number;
  #held = 0;
  readonly #waiting: Waiter[] = [];

  constructor(
    readonly bytes: number,
    options: BodyBudgetOptions = {},
  ) {
    if (!(bytes > 0)) throw new RangeError(`a body budget must be positive, got ${bytes}`);
    this.#waitMs = options.waitMs ?? BUDGET_WAIT_MS;
  }

  /** Bytes held now, by all requests. */
  get held(): number {
    return this.#held;
  }

  /** Requests waiting for room. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** A share for the request `res` answers, given back when it closes. */
  share(res: ServerResponse): BodyShare {
    let mine = 0;
    let closed = res.destroyed;
    const fits = (bytes: number) => this.#held === mine || this.#held + bytes <= this.bytes;
    const hold = (bytes: number) => {
      this.#held += bytes;
      mine += bytes;
    };
    res.once('close', () => {
      closed = true;
      this.#held -= mine;
      mine = 0;
      this.#admit();
    });
    return {
      reserve: (bytes) => {
        if (closed || bytes <= 0) return Promise.resolve();
        if (this.#waiting.length === 0 && fits(bytes)) {
          hold(bytes);
          return Promise.resolve();
        }
        if (this.#waitMs === 0 || this.#waiting.length >= MAX_WAITING) return Promise.reject(new BodyBudgetError(BUDGET_RETRY_SECONDS));
        return new Promise((resolve, reject) => {
          const waiter: Waiter = {
            bytes,
            admit: () => {
              clearTimeout(timer);
              res.off('close', gone);
              if (!closed) hold(bytes);
              resolve();
            },
          };
          const leave = () => {
            const at = this.#waiting.indexOf(waiter);
            if (at >= 0) this.#waiting.splice(at, 1);
            res.off('close', gone);
            // The one behind may fit where this one did not.
            this.#admit();
          };
          const timer = setTimeout(() => {
            leave();
            reject(new BodyBudgetError(BUDGET_RETRY_SECONDS));
          }, this.#waitMs);
          timer.unref();
          const gone = () => {
            clearTimeout(timer);
            leave();
            resolve();
          };
          res.once('close', gone);
          this.#waiting.push(waiter);
        });
      },
      take: (bytes) => {
        if (closed || bytes <= 0) return;
        if (!fits(bytes)) throw new BodyBudgetError(BUDGET_RETRY_SECONDS);
        hold(bytes);
      },
    };
  }

  /** Lets in the waiting bodies that fit now, first come first. */
  #admit(): void {
    while (this.#waiting.length > 0) {
      const next = this.#waiting[0] as Waiter;
      if (this.#held !== 0 && this.#held + next.bytes > this.bytes) return;
      this.#waiting.shift();
      next.admit();
    }
  }
}

/** One request's part of a BodyBudget. */
export interface BodyShare {
  /** Takes a declared body's `bytes` before it is read, waiting for room; rejects with BodyBudgetError when none came in time. */
  reserve(bytes: number): Promise<void>;
  /** Takes `bytes` more of a body sent without its length, as they arrive; throws BodyBudgetError when they do not fit. */
  take(bytes: number): void;
}

export interface ReadOptions {
  /** The most the body may be; more is refused with BodyTooLargeError. */
  readonly limit: number;
  /** The request's part of the server's budget; without it the body is only capped. */
  readonly share?: BodyShare | undefined;
}

/**
 * Feeds the body to `take` piece by piece. Rejects with BodyTooLargeError as soon as the
 * declared or received size passes the limit, with BodyBudgetError when the budget has no room,
 * or with what `take` throws; the rest of the body is then left for the refusal (sendJson) to
 * read and drop.
 */
async function readPieces(req: IncomingMessage, options: ReadOptions, take: (chunk: Buffer) => void): Promise<void> {
  const { limit, share } = options;
  const declared = Number(req.headers['content-length']);
  const isDeclared = req.headers['content-length'] !== undefined && Number.isFinite(declared);
  if (isDeclared && declared > limit) throw new BodyTooLargeError(limit);
  if (isDeclared) await share?.reserve(declared);
  if (req.destroyed) throw Object.assign(new Error('The client went away before its body was read'), { name: 'AbortError' });
  await new Promise<void>((resolve, reject) => {
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      try {
        if (size > limit) throw new BodyTooLargeError(limit);
        // A body sent without its length takes its share as it comes (one that lied about its length, the excess).
        if (!isDeclared) share?.take(chunk.length);
        else if (size > declared) share?.take(Math.min(chunk.length, size - declared));
        take(chunk);
      } catch (error) {
        cleanup();
        reject(error as Error);
      }
    };
    const onEnd = () => {
      cleanup();
      resolve();
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

/** The whole body as bytes (an uploaded file). */
export async function readBody(req: IncomingMessage, options: ReadOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  await readPieces(req, options, (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

export type JsonBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

const INVALID_JSON: JsonBody = { ok: false, problem: 'Invalid JSON body' };

/**
 * The body as JSON, parsed as it arrives: an empty body is `undefined`. Once the text cannot be
 * JSON, the rest is only counted against the cap (a body over it is still 413), then dropped.
 */
export async function readJsonBody(req: IncomingMessage, options: ReadOptions): Promise<JsonBody> {
  const parser = new JsonStreamParser();
  let invalid = false;
  await readPieces(req, options, (chunk) => {
    if (invalid) return;
    try {
      parser.write(chunk);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      invalid = true;
    }
  });
  if (invalid) return INVALID_JSON;
  try {
    return { ok: true, value: parser.end() };
  } catch (error) {
    if (error instanceof SyntaxError) return INVALID_JSON;
    throw error;
  }
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
