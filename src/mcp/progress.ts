/**
 * MCP progress notifications for one request. Sends nothing unless the caller
 * asked for progress (a `progressToken` in the request's `_meta`). Notifications
 * leave in the order they were reported, and `flush()` lets a handler make sure
 * they precede its result.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { describeError, type Logger } from '../log.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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

  /** Resolves once every queued notification has been handed to the transport. */
  flush(): Promise<void> {
    return this.#queue;
  }
}
