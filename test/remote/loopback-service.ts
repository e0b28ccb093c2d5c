/**
 * Small loopback HTTP servers that stand in for the service and misbehave on
 * purpose. Each records what it received, so tests can check what the remote
 * adapter sent (and how often).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordOf, startLoopbackServer } from '../support/loopback-server.js';

export interface ReceivedRequest {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /** The JSON body, or undefined when there was none. */
  readonly body: unknown;
}

/** Answers the `index`-th request (from 0). */
export type Responder = (request: ReceivedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface LoopbackService {
  /** The API base URL: `http://127.0.0.1:PORT/api/v1`. */
  readonly baseUrl: string;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startLoopbackService(respond: Responder): Promise<LoopbackService> {
  const requests: ReceivedRequest[] = [];
  const server = await startLoopbackServer((req, res) => {
    const { method, path, headers, body } = recordOf(req);
    const request: ReceivedRequest = { method, url: path, headers, body: body === '' ? undefined : (JSON.parse(body) as unknown) };
    requests.push(request);
    return respond(request, res, requests.length - 1);
  });
  return { baseUrl: `${server.origin}/api/v1`, requests, close: () => server.close() };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A free loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
