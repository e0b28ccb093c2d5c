/**
 * The one HTTP server of the tests: real, on 127.0.0.1 (port 0). Pages for the
 * fetchers and crawlers, and the stand-ins for outside services (test/stand-ins/)
 * are built on it. It answers by path (`routes`) or through one route, records
 * every request (with its body), counts connections, can be told to fail the
 * next matching requests the way a real service sometimes does (429 with
 * Retry-After, 500, 503), and closes its keep-alive connections on close().
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
  /** The request body, already read when a route runs (see recordOf). */
  readonly body: string;
}

export type Route = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Objects are sent as JSON. */
  readonly body?: string | Buffer | object;
}

/** Answers a request with a reply: the stand-ins' way of speaking a service's wire format. */
export type Handler = (request: RecordedRequest) => Reply | Promise<Reply>;

export interface LoopbackServer {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly origin: string;
  readonly port: number;
  /** An absolute URL of `path` on this server. */
  url(path: string): string;
  readonly requests: readonly RecordedRequest[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Answers the next `times` requests whose path starts with `pathPrefix` (or that `pathPrefix` matches) with `reply`. */
  failNext(pathPrefix: string | RegExp, reply: Reply, times?: number): void;
  close(): Promise<void>;
}

const records = new WeakMap<IncomingMessage, RecordedRequest>();

/** What the server recorded of a request, its body included (a route finds the request's stream consumed). */
export function recordOf(request: IncomingMessage): RecordedRequest {
  const recorded = records.get(request);
  if (!recorded) throw new Error('not a request of a loopback server');
  return recorded;
}

interface Fault {
  readonly matches: (request: RecordedRequest) => boolean;
  readonly reply: Reply;
  remaining: number;
}

/**
 * Starts a server answering from `routes` (keyed by path without the query, 404
 * for anything else), or through one route for every request.
 */
export async function startLoopbackServer(routes: Readonly<Record<string, Route>> | Route): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  let connections = 0;
  let origin = '';
  const routeOf = (path: string): Route | undefined => (typeof routes === 'function' ? routes : routes[path.split('?')[0] ?? path]);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path,
        url: new URL(path, origin),
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      records.set(request, recorded);
      const fault = faults.find((candidate) => candidate.remaining > 0 && candidate.matches(recorded));
      if (fault) {
        fault.remaining -= 1;
        send(response, fault.reply);
        return;
      }
      const route = routeOf(path);
      if (!route) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      Promise.resolve(route(request, response)).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    url: (path) => new URL(path, origin).href,
    requests,
    get connections() {
      return connections;
    },
    failNext(pathPrefix, reply, times = 1) {
      const matches =
        typeof pathPrefix === 'string'
          ? (request: RecordedRequest) => request.path.startsWith(pathPrefix)
          : (request: RecordedRequest) => pathPrefix.test(request.path);
      faults.push({ matches, reply, remaining: times });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A route answering every request through `handler`; a handler that throws answers 500. */
export function replying(handler: Handler): Route {
  return async (request, response) => {
    let reply: Reply;
    try {
      reply = await handler(recordOf(request));
    } catch (error) {
      reply = { status: 500, body: { error: String(error) } };
    }
    send(response, reply);
  };
}

function send(response: ServerResponse, reply: Reply): void {
  const isJson = reply.body !== undefined && typeof reply.body === 'object' && !Buffer.isBuffer(reply.body);
  const body = isJson ? JSON.stringify(reply.body) : (reply.body as string | Buffer | undefined);
  response.writeHead(reply.status, {
    ...(isJson ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    ...reply.headers,
  });
  response.end(body);
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

export function json(status: number, body: object, headers: Readonly<Record<string, string>> = {}): Reply {
  return { status, body, headers };
}

/** The `user:password` of a Basic Authorization header, or undefined. */
export function basicCredentials(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(headers.authorization ?? '');
  return match?.[1] === undefined ? undefined : Buffer.from(match[1], 'base64').toString('utf8');
}

export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
}
