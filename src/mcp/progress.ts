/**
 * MCP progress notifications for one request. Sends nothing unless the caller
 * asked for progress (a `progressToken` in the request's `_meta`). Notifications
 * leave in the order they were reported, and `flush()` lets a handler make sure
 * the client has taken them in before its result arrives.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { describeError, type Logger } from '../log.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How long `flush()` waits for the client's answer to its ping before giving up on it. */
export const DELIVERY_PING_TIMEOUT_MS = 5_000;

export class ProgressReporter {
  readonly #extra: ToolExtra;
  readonly #logger: Logger;
  readonly #token: string | number | undefined;
  #queue: Promise<void> = Promise.resolve();
  #last = -1;

  constructor(extra: ToolExtra, logger: Logger) {
    this.#extra = extra;
    this.#logger = logger;
    this.#token = extra._meta?.progressToken;
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
      if (this.#extra.signal.aborted) return;
      try {
        await this.#extra.sendNotification({ method: 'notifications/progress', params });
      } catch (error) {
        this.#logger.debug('mcp progress notification not sent', { error: describeError(error) });
      }
    });
  }

  /**
   * Resolves once the client has taken in every notification sent, so that the
   * result cannot overtake them. Handing them to the transport is not enough:
   * the SDK client dispatches a notification a microtask after reading it but
   * settles a response at once, dropping the progress of a request that has
   * ended, so notifications read together with the result are lost (over stdio,
   * most of a fast answer). A ping sent after them, on the same stream, is
   * answered only after the client has dispatched them.
   */
  async flush(): Promise<void> {
    await this.#queue;
    if (this.#last < 0 || this.#extra.signal.aborted) return;
    try {
      await this.#extra.sendRequest({ method: 'ping' }, EmptyResultSchema, { timeout: DELIVERY_PING_TIMEOUT_MS });
    } catch (error) {
      // A client that does not answer pings gets the result anyway, as before.
      this.#logger.debug('mcp progress delivery not confirmed', { error: describeError(error) });
    }
  }
}
