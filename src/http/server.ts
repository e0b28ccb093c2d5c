/**
 * The HTTP server of `guru-mcp serve`: the REST API under `/api/v1`, MCP
 * streamable HTTP at `/mcp`, and `GET /healthz`. Plain node:http, so that
 * starting it costs little.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Backend } from '../core/assistant.js';
import { describeError, type Logger } from '../log.js';
import type { McpHttpHandler } from '../mcp/http.js';
import type { RateLimiter } from '../state/rate-limiter.js';
import type { BodyBudget } from './body.js';
import { isLoopbackHost, isWildcardHost, loopbackHostCheck, originCheck, urlHost, wellFormedHost } from './host.js';
import { sendJson } from './respond.js';
import { createRestApi, REST_PREFIX } from './rest.js';

export interface HttpServerOptions {
  readonly backend: Backend;
  readonly logger: Logger;
  readonly host: string;
  /** 0 picks a free port; `url` tells which. */
  readonly port: number;
  /** The REST rate limit (compose.ts: openRateLimiter); its owner closes it. */
  readonly limiter: RateLimiter;
  /** Serves `/mcp`; closed together with the server. */
  readonly mcp?: McpHttpHandler;
  /** The URL clients reach this server at (GURU_PUBLIC_URL), for absolute links in responses. */
  readonly publicUrl?: string;
  /** The web interface (src/web/), answering every path the others do not. */
  readonly web?: WebInterface;
  /** The bytes of large request bodies read at once (GURU_BODY_BUDGET_MB), shared with `mcp` and `web`; none: bodies are only capped. */
  readonly bodies?: BodyBudget;
}

/** What the server needs of the web interface: its pages, and the address of a session's page. */
export interface WebInterface {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** The path of the page that shows a session, from the server's root. */
  sessionPath(sessionId: string): string;
}

export interface RunningHttpServer {
  /** The base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  /** Stops listening, ends open connections, closes `mcp`. */
  close(): Promise<void>;
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { backend, logger, host, mcp, limiter, publicUrl, web, bodies } = options;
  // Links to the web interface are absolute: under the public URL, else the address listened on (known once listening).
  let baseUrl = publicUrl ?? '';
  const sessionLink = web === undefined ? undefined : (sessionId: string) => `${baseUrl}${web.sessionPath(sessionId)}`;
  const rest = createRestApi({
    backend,
    logger,
    limiter,
    bodies,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(sessionLink === undefined ? {} : { sessionLink }),
  });
  // On loopback only loopback names (DNS rebinding); elsewhere any name, but only a host and port.
  const hostAllowed = isLoopbackHost(host) ? loopbackHostCheck(host) : wellFormedHost;
  const originAllowed = originCheck(host);
  if (backend.admin === undefined) {
    logger.warn('this backend has no API keys to check; REST requests under /api/v1 will be refused');
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    const isMcp = path === '/mcp' || path === '/mcp/';
    if (!hostAllowed(req.headers.host)) {
      const message = `Invalid Host header: ${req.headers.host ?? '(none)'}`;
      // MCP clients expect JSON-RPC shaped errors, as the SDK's own host validation sends.
      const body = isMcp ? { jsonrpc: '2.0', error: { code: -32000, message }, id: null } : { msg: message };
      return sendJson(res, 403, body);
    }
    // Only /mcp: REST requests need an x-api-key header, which no page on another origin may send without a CORS grant.
    if (isMcp && !originAllowed(req.headers.origin, req.headers.host)) {
      const message = `Invalid Origin header: ${req.headers.origin}`;
      return sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message }, id: null });
    }
    if (path === '/healthz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { msg: 'Method not allowed' }, { allow: 'GET, HEAD' });
      return sendJson(res, 200, { status: 'ok' });
    }
    if (isMcp && mcp !== undefined) return mcp.handle(req, res);
    if (path.startsWith(`${REST_PREFIX}/`)) return rest(req, res, url);
    if (web !== undefined) return web.handle(req, res, url);
    return sendJson(res, 404, { msg: 'Not found' });
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    const url = requestUrl(req);
    res.once('close', () => {
      logger.debug('http request', {
        method: req.method,
        path: loggedPath(url.pathname),
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      });
    });
    route(req, res, url).catch((error: unknown) => {
      logger.error('http request failed', { path: loggedPath(url.pathname), error: describeError(error) });
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { msg: 'Internal server error' });
    });
  });

  await listen(server, options.port, host);
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${port}`;
  // Links in answers must open in a browser: a wildcard address does not, so they name this
  // machine's loopback until the operator says where the server is reached (--public-url).
  baseUrl = publicUrl ?? (isWildcardHost(host) ? `http://localhost:${port}` : url);
  logger.info('http server listening', { url });
  if (publicUrl === undefined && web !== undefined && isWildcardHost(host)) {
    logger.info('session links in answers point to localhost; set --public-url (GURU_PUBLIC_URL) to the address others reach this server at', { links: baseUrl });
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await mcp?.close();
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}

/** A path as logs show it: an end user's id (`/end-users/{id}/`) stays out of them, as out of every file once erased. */
function loggedPath(path: string): string {
  return path.replace(/\/end-users\/[^/]*/, '/end-users/{external_user_id}');
}

/**
 * The request's path and query, as a URL. Its origin is a placeholder: the Host
 * header is the client's to choose, so nothing is built from it.
 */
function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? '/';
  const path = target.startsWith('/') ? target : '/';
  try {
    return new URL(`http://localhost${path}`);
  } catch {
    return new URL('http://localhost/');
  }
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
