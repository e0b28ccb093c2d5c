/**
 * Subscriptions to `guru://{guru_slug}/data-sources`. Processing runs in the
 * background (possibly in another process on the same data directory), so
 * there is no event to forward: while a client is subscribed, the first page of
 * the listing is looked at every few seconds, and `notifications/resources/updated`
 * goes out whenever the count or a status on it changed. Other resources
 * cannot be subscribed to.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { isGuruError } from '../core/errors.js';
import { describeError } from '../log.js';
import type { ResourceContext } from './resources.js';
import { RESOURCE_SOURCE_PAGE_SIZE } from './resources.js';

/** How often a subscribed data-sources resource is looked at. */
export const DATA_SOURCE_POLL_MS = 2000;

const DATA_SOURCES_URI = /^guru:\/\/([^/?#]+)\/data-sources$/;

interface Watch {
  readonly guru: string;
  readonly timer: NodeJS.Timeout;
  /** What the resource last showed, reduced to what a notification is sent for. */
  fingerprint: string;
  /** A look is under way; a slow listing never overlaps the next. */
  looking: boolean;
}

export interface Subscriptions {
  /** Stops every watch; the connection has ended. */
  close(): void;
}

/** Declares `resources.subscribe` and handles subscribe and unsubscribe; call before connecting. */
export function registerSubscriptions(server: McpServer, context: ResourceContext, pollMs = DATA_SOURCE_POLL_MS): Subscriptions {
  const watches = new Map<string, Watch>();

  const fingerprint = async (guru: string): Promise<string> => {
    const page = await context.assistant.listDataSources(guru, { page: 1, page_size: RESOURCE_SOURCE_PAGE_SIZE });
    return JSON.stringify([page.count, page.results.map((source) => [source.id, source.status])]);
  };

  const stop = (uri: string) => {
    const watch = watches.get(uri);
    if (!watch) return;
    clearInterval(watch.timer);
    watches.delete(uri);
  };

  const look = async (uri: string, watch: Watch) => {
    if (watch.looking) return;
    watch.looking = true;
    try {
      const now = await fingerprint(watch.guru);
      if (watches.get(uri) !== watch || now === watch.fingerprint) return;
      watch.fingerprint = now;
      if (!server.isConnected()) {
        stop(uri);
        return;
      }
      await server.server.sendResourceUpdated({ uri });
    } catch (error) {
      context.logger.debug('mcp data-sources watch: look failed', { uri, error: describeError(error) });
    } finally {
      watch.looking = false;
    }
  };

  server.server.registerCapabilities({ resources: { subscribe: true } });

  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (watches.has(uri)) return {};
    const guru = guruOf(uri);
    if (guru === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `Only guru://{guru_slug}/data-sources can be subscribed to, not ${uri}`);
    }
    if (!context.gurus.allows(guru)) throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
    let first: string;
    try {
      first = await fingerprint(guru);
    } catch (error) {
      if (isGuruError(error) && (error.status === 404 || error.status === 403)) {
        throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
      }
      if (isGuruError(error)) throw new McpError(ErrorCode.InvalidParams, error.message);
      context.logger.error('mcp subscribe failed', { uri, error: describeError(error) });
      throw new McpError(ErrorCode.InternalError, 'Internal server error');
    }
    // Another subscribe to the same URI may have finished while this one listed.
    if (watches.has(uri)) return {};
    const timer = setInterval(() => {
      const watch = watches.get(uri);
      if (watch) void look(uri, watch);
    }, pollMs);
    // A watch never keeps the process alive on its own.
    timer.unref();
    watches.set(uri, { guru, timer, fingerprint: first, looking: false });
    return {};
  });

  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    stop(request.params.uri);
    return {};
  });

  return {
    close() {
      for (const uri of [...watches.keys()]) stop(uri);
    },
  };
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
