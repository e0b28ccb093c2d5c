/**
 * A real HTTP server on 127.0.0.1 (port 0) for tests that fetch: routes by path, records every
 * request, counts connections, and closes its keep-alive connections on close().
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

export interface LoopbackServer {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly port: number;
  /** An absolute URL of `path` on this server. */
  url(path: string): string;
  readonly requests: readonly RecordedRequest[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Starts a server answering from `routes` (keyed by path without the query), 404 for anything else. */
export async function startLoopbackServer(routes: Readonly<Record<string, Route>>): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers });
    const route = routes[path.split('?')[0] ?? path];
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    Promise.resolve(route(request, response)).catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    url: (path) => new URL(path, origin).href,
    requests,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A route answering `body` with `status` and `headers` (content-type defaults to UTF-8 HTML). */
export function respond(body: string | Buffer, headers: Readonly<Record<string, string>> = {}, status = 200): Route {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    response.end(body);
  };
}

/** A route redirecting with `status` to `location` (relative or absolute, sent as is). */
export function redirect(location: string, status = 302): Route {
  return (_request, response) => {
    response.writeHead(status, { location }).end();
  };
}
