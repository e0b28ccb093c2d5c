/**
 * The service's own web interface, mounted at `/` by `guru-mcp serve` (and
 * loaded only there). Pages are one HTML shell with native ES modules that call
 * the REST API with the key from the browser session; operator operations the
 * spec has no endpoint for go to the routes of operator-routes.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackHost, originCheck } from '../http/host.js';
import { sendJson } from '../http/respond.js';
import { createApiHandler, type ApiDependencies } from '../http/rest.js';
import type { WebInterface } from '../http/server.js';
import { loadAssets } from './assets-store.js';
import { SECURITY_HEADERS } from './headers.js';
import { operatorRoutes, WEB_API_PREFIX } from './operator-routes.js';

export interface WebInterfaceOptions extends ApiDependencies {
  /** The address the server binds: on a loopback one, the local operator may list and create gurus. */
  readonly host: string;
  /** GURU_MCP_REQUIRE_KEY: even on loopback, nothing without a key (no listing or creating gurus). */
  readonly requireKey?: boolean;
}

/** The paths of the pages; each is the same shell, which shows the page its path names. */
const PAGE_PATH = /^\/(?:|sources|crawl|ask|sessions|sessions\/[^/]+|end-users|settings|gurus)\/?$/;

export const sessionPath = (sessionId: string): string => `/sessions/${encodeURIComponent(sessionId)}`;

export function createWebInterface(options: WebInterfaceOptions): WebInterface {
  const { backend, host } = options;
  const assets = loadAssets();
  const operatorApi =
    backend.admin === undefined
      ? undefined
      : createApiHandler(options, WEB_API_PREFIX, operatorRoutes({ admin: backend.admin, localOperator: isLoopbackHost(host) && options.requireKey !== true }));
  // Only the interface's own pages change things: another page on this machine may not (it could create gurus).
  const originAllowed = originCheck(host, { sameOriginOnly: true });

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const path = url.pathname;
    if (path === WEB_API_PREFIX || path.startsWith(`${WEB_API_PREFIX}/`)) {
      if (operatorApi === undefined) return sendJson(res, 404, { msg: 'This backend has no operator operations' });
      // Browsers send Origin with every fetch that changes something; a page of another site may not.
      if (req.method !== 'GET' && req.method !== 'HEAD' && !originAllowed(req.headers.origin, req.headers.host)) {
        return sendJson(res, 403, { msg: `Invalid Origin header: ${req.headers.origin}` });
      }
      return operatorApi(req, res, url);
    }
    const asset = PAGE_PATH.test(path) ? assets.get('/index.html') : assets.get(path);
    if (asset === undefined) return sendJson(res, 404, { msg: 'Not found' });
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { msg: 'Method not allowed' }, { allow: 'GET, HEAD' });
    res.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }

  return { handle, sessionPath };
}
