/** Calling the REST API over real HTTP, for the tests of test/http/. */
import type { Readable } from 'node:stream';
import { request } from 'undici';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body as JSON (throws when it is not). */
  readonly json: unknown;
}

export interface CallOptions {
  readonly key?: string;
  readonly body?: unknown;
  /** Sent as is, not JSON-encoded. */
  readonly rawBody?: string | Buffer | Readable;
  readonly headers?: Record<string, string>;
}

export async function call(base: string, method: 'GET' | 'POST' | 'DELETE', path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  let body = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await request(`${base}${path}`, { method, headers, body });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    text,
    get json(): unknown {
      return JSON.parse(text);
    },
  };
}
