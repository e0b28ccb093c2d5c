/**
 * Subscriptions to `guru://{guru_slug}/data-sources`, in both protocol eras.
 * Processing runs in the background (possibly in another process on the same
 * data directory), so there is no event to forward: while a client is
 * subscribed, the first page of the listing is looked at every few seconds,
 * and `notifications/resources/updated` goes out whenever the count or a
 * status on it changed. Other resources cannot be subscribed to.
 *
 * 2025-era clients call `resources/subscribe` and `resources/unsubscribe`
 * (`registerLegacySubscriptions`). 2026-07-28 clients open a
 * `subscriptions/listen` request naming the URIs; the SDK's serving entry
 * answers it and routes the updates, so the transports tell `ListenWatches`
 * which listen requests open and end.
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import type { JSONRPCMessage, McpServer } from '@modelcontextprotocol/server';
import { isGuruError } from '../core/errors.js';
import { describeError } from '../log.js';
import type { ResourceContext } from './resources.js';
import { RESOURCE_SOURCE_PAGE_SIZE } from './resources.js';

/** How often a subscribed data-sources resource is looked at. */
export const DATA_SOURCE_POLL_MS = 2000;

const DATA_SOURCES_URI = /^guru:\/\/([^/?#]+)\/data-sources$/;

/** Ends one watch. */
export type StopWatch = () => void;

/**
 * Watches `uri` until the returned function is called: `onUpdated` runs
 * whenever the resource changed. Rejects with a ProtocolError when `uri` cannot
 * be subscribed to (not a data-sources resource, or a guru out of reach).
 */
export async function watchDataSources(context: ResourceContext, uri: string, pollMs: number, onUpdated: () => Promise<void> | void): Promise<StopWatch> {
  const guru = guruOf(uri);
  if (guru === undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Only guru://{guru_slug}/data-sources can be subscribed to, not ${uri}`);
  }
  if (!context.gurus.allows(guru)) throw new ResourceNotFoundError(uri, `Resource ${uri} not found`);

  const fingerprint = async (): Promise<string> => {
    const page = await context.assistant.listDataSources(guru, { page: 1, page_size: RESOURCE_SOURCE_PAGE_SIZE });
    return JSON.stringify([page.count, page.results.map((source) => [source.id, source.status])]);
  };
  let last: string;
  try {
    last = await fingerprint();
  } catch (error) {
    if (isGuruError(error) && (error.status === 404 || error.status === 403)) throw new ResourceNotFoundError(uri, `Resource ${uri} not found`);
    if (isGuruError(error)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    context.logger.error('mcp subscribe failed', { uri, error: describeError(error) });
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal server error');
  }

  let stopped = false;
  // A look is under way: a slow listing never overlaps the next.
  let looking = false;
  const look = async () => {
    if (looking) return;
    looking = true;
    try {
      const now = await fingerprint();
      if (stopped || now === last) return;
      last = now;
      await onUpdated();
    } catch (error) {
      context.logger.debug('mcp data-sources watch: look failed', { uri, error: describeError(error) });
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(() => void look(), pollMs);
  // A watch never keeps the process alive on its own.
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

export interface Subscriptions {
  /** Stops every watch; the connection has ended. */
  close(): void;
}

/** 2025 era: handles subscribe and unsubscribe (the server declares `resources.subscribe`); call before connecting. */
export function registerLegacySubscriptions(server: McpServer, context: ResourceContext, pollMs = DATA_SOURCE_POLL_MS): Subscriptions {
  const watches = new Map<string, StopWatch | 'starting'>();

  server.server.setRequestHandler('resources/subscribe', async (request) => {
    const { uri } = request.params;
    if (watches.has(uri)) return {};
    watches.set(uri, 'starting');
    try {
      const stop = await watchDataSources(context, uri, pollMs, async () => {
        if (server.isConnected()) await server.server.sendResourceUpdated({ uri });
      });
      // An unsubscribe may have come while the watch started.
      if (watches.get(uri) === 'starting') watches.set(uri, stop);
      else stop();
    } catch (error) {
      if (watches.get(uri) === 'starting') watches.delete(uri);
      throw error;
    }
    return {};
  });

  server.server.setRequestHandler('resources/unsubscribe', async (request) => {
    const watch = watches.get(request.params.uri);
    watches.delete(request.params.uri);
    if (typeof watch === 'function') watch();
    return {};
  });

  return {
    close() {
      for (const watch of watches.values()) if (typeof watch === 'function') watch();
      watches.clear();
    },
  };
}

/**
 * 2026-07-28 era: the watches behind open `subscriptions/listen` requests,
 * keyed by the request's JSON-RPC id. A URI that cannot be watched is left
 * out (the SDK has acknowledged the listen already); it never gets an update.
 */
export class ListenWatches {
  readonly #context: ResourceContext;
  readonly #pollMs: number;
  readonly #publish: (uri: string) => void;
  readonly #open = new Map<string | number, StopWatch[]>();

  constructor(context: ResourceContext, publish: (uri: string) => void, pollMs = DATA_SOURCE_POLL_MS) {
    this.#context = context;
    this.#publish = publish;
    this.#pollMs = pollMs;
  }

  /**
   * Looks at a message from the client: a `subscriptions/listen` request
   * starts watches, a cancellation of one ends them.
   */
  inbound(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message) && message.method === 'subscriptions/listen') void this.open(message.id, message.params);
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.end(id);
    }
  }

  /** Looks at a message to the client: the answer to a listen request (a refusal, or the end at shutdown) ends its watches. */
  outbound(message: JSONRPCMessage): void {
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined && this.#open.has(message.id)) {
      this.end(message.id);
    }
  }

  /** A listen request arrived: watches the data-sources URIs among its `resourceSubscriptions`. */
  async open(id: string | number, params: unknown): Promise<void> {
    const stops: StopWatch[] = [];
    this.#open.set(id, stops);
    for (const uri of resourceSubscriptionsOf(params)) {
      try {
        const stop = await watchDataSources(this.#context, uri, this.#pollMs, () => this.#publish(uri));
        if (this.#open.get(id) === stops) stops.push(stop);
        else stop();
      } catch (error) {
        this.#context.logger.debug('mcp listen: resource not watched', { uri, error: describeError(error) });
      }
    }
  }

  /** The listen request ended (cancelled, answered, or its stream closed). */
  end(id: string | number): void {
    const stops = this.#open.get(id);
    this.#open.delete(id);
    for (const stop of stops ?? []) stop();
  }

  close(): void {
    for (const id of [...this.#open.keys()]) this.end(id);
  }
}

/** `params.notifications.resourceSubscriptions` of a listen request, whatever else it holds. */
function resourceSubscriptionsOf(params: unknown): string[] {
  const notifications = (params as { notifications?: unknown } | undefined)?.notifications;
  if (typeof notifications !== 'object' || notifications === null) return [];
  const uris = (notifications as { resourceSubscriptions?: unknown }).resourceSubscriptions;
  return Array.isArray(uris) ? [...new Set(uris.filter((uri): uri is string => typeof uri === 'string'))] : [];
}

function guruOf(uri: string): string | undefined {
  const encoded = DATA_SOURCES_URI.exec(uri)?.[1];
  if (encoded === undefined) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}
