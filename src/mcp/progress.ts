/**
 * MCP progress notifications for one request. Sends nothing unless the caller
 * asked for progress (a `progressToken` in the request's `_meta`). Notifications
 * leave in the order they were reported, and `flush()` lets a handler make sure
 * a 2025-era client has taken them in before its result arrives.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import { describeError, type Logger } from '../log.js';

export type ToolExtra = ServerContext;

/** The protocol era of a connection (2025-era sessions) or request (2026-07-28). */
export type Era = 'legacy' | 'modern';

/** How long `flush()` waits for the client's answer to its ping before giving up on it. */
export const DELIVERY_PING_TIMEOUT_MS = 5_000;
/** How long `flush()` holds a 2026-07-28 result back after the last notification went out. */
export const MODERN_SETTLE_MS = 50;

export class ProgressReporter {
  readonly #extra: ToolExtra;
  readonly #logger: Logger;
  readonly #era: Era;
  readonly #token: string | number | undefined;
  #queue: Promise<void> = Promise.resolve();
  #last = -1;

  constructor(extra: ToolExtra, context: { readonly logger: Logger; readonly era: Era }) {
    this.#extra = extra;
    this.#logger = context.logger;
    this.#era = context.era;
    this.#token = extra.mcpReq._meta?.progressToken;
  }

  get requested(): boolean {
    return this.#token !== undefined;
  }

  /** Queues a notification; `progress` must grow from one call to the next (the spec requires it). */
  report(progress: number, message?: string, total?: number): void {
    const token = this.#token;
    if (token === undefined || progress <= this.#last) return;
    this.#last = progress;
    const params = { progressToken: token, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) };
    this.#queue = this.#queue.then(async () => {
      if (this.#extra.mcpReq.signal.aborted) return;
      try {
        await this.#extra.mcpReq.notify({ method: 'notifications/progress', params });
      } catch (error) {
        this.#logger.debug('mcp progress notification not sent', { error: describeError(error) });
      }
    });
  }

  /**
   * Resolves once every notification has been handed on and, in the 2025 era,
   * once the client has taken them in, so that the result cannot overtake them.
   * Handing them to the transport is not enough there: the SDK clients (1.x
   * and 2.x) dispatch a notification a microtask after reading it but settle a
   * response at once, dropping the progress of a request that has ended, so
   * notifications read together with the result are lost (over stdio, most of
   * a fast answer). A ping sent after them, on the same stream, is answered
   * only after the client has dispatched them. The 2026-07-28 era has no
   * server-to-client requests to confirm delivery with (a ping is refused):
   * there the result waits MODERN_SETTLE_MS after the notifications were
   * written, so that they reach the client in an earlier read than the result
   * (without it, the v2 client over stdio lost every notification of a fast
   * answer). Either way the result carries everything the progress said.
   */
  async flush(): Promise<void> {
    await this.#queue;
    if (this.#last < 0 || this.#extra.mcpReq.signal.aborted) return;
    if (this.#era === 'modern') {
      await new Promise((resolve) => setTimeout(resolve, MODERN_SETTLE_MS));
      return;
    }
    try {
      await this.#extra.mcpReq.send({ method: 'ping' }, { timeout: DELIVERY_PING_TIMEOUT_MS });
    } catch (error) {
      // A client that does not answer pings gets the result anyway, as before.
      this.#logger.debug('mcp progress delivery not confirmed', { error: describeError(error) });
    }
  }
}
