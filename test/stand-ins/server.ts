/**
 * A loopback HTTP server for the integration stand-ins: answers through one
 * handler, records every request (method, path, headers, body), and can be told
 * to fail the next matching requests with a given status, the way a real
 * service sometimes does (429 with Retry-After, 500, 503).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Objects are sent as JSON. */
  readonly body?: string | Buffer | object;
}

export type Handler = (request: RecordedRequest) => Reply | Promise<Reply>;

interface Fault {
  readonly matches: (request: RecordedRequest) => boolean;
  readonly reply: Reply;
  remaining: number;
}

export class StandInServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #faults: Fault[] = [];
  #baseUrl = '';

  private constructor(handler: Handler) {
    this.#server = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const path = incoming.url ?? '/';
        const request: RecordedRequest = {
          method: incoming.method ?? 'GET',
          path,
          url: new URL(path, this.#baseUrl),
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(request);
        void this.#answer(request, handler).then(
          (reply) => send(outgoing, reply),
          (error: unknown) => send(outgoing, { status: 500, body: { error: String(error) } }),
        );
      });
    });
  }

  static async start(handler: Handler): Promise<StandInServer> {
    const standIn = new StandInServer(handler);
    await new Promise<void>((resolve) => standIn.#server.listen(0, '127.0.0.1', resolve));
    const { port } = standIn.#server.address() as AddressInfo;
    standIn.#baseUrl = `http://127.0.0.1:${port}`;
    return standIn;
  }

  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** Answers the next `times` requests whose path starts with `pathPrefix` (or that `pathPrefix` matches) with `reply`. */
  failNext(pathPrefix: string | RegExp, reply: Reply, times = 1): void {
    const matches =
      typeof pathPrefix === 'string'
        ? (request: RecordedRequest) => request.path.startsWith(pathPrefix)
        : (request: RecordedRequest) => pathPrefix.test(request.path);
    this.#faults.push({ matches, reply, remaining: times });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #answer(request: RecordedRequest, handler: Handler): Promise<Reply> {
    const fault = this.#faults.find((candidate) => candidate.remaining > 0 && candidate.matches(request));
    if (fault) {
      fault.remaining -= 1;
      return fault.reply;
    }
    return handler(request);
  }
}

function send(outgoing: ServerResponse, reply: Reply): void {
  const isJson = reply.body !== undefined && typeof reply.body === 'object' && !Buffer.isBuffer(reply.body);
  const body = isJson ? JSON.stringify(reply.body) : (reply.body as string | Buffer | undefined);
  outgoing.writeHead(reply.status, {
    ...(isJson ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    ...reply.headers,
  });
  outgoing.end(body);
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
