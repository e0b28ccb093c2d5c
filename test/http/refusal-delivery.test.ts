/**
 * A body refused before it was read whole (413 over a cap) still reaches its client as a
 * response: the server reads and drops the rest of the body before it closes, so a client that
 * is still sending never meets a closed connection (EPIPE, ECONNRESET) instead of the refusal.
 * Against the built server, on REST, the web interface's API and /mcp.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { Readable, type Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_AND_SSE } from '../support/mcp-requests.js';
import { serveGuru, type ServedGuru } from '../support/serve.js';

let served: ServedGuru;

beforeAll(async () => {
  served = await serveGuru('docs');
});
afterAll(() => served?.close());

interface Target {
  readonly name: string;
  readonly path: string;
  readonly headers: () => Record<string, string>;
  /** The body's size: over the route's cap. */
  readonly bytes: number;
  readonly status: number;
  readonly body: unknown;
}

const MiB = 1024 * 1024;

const TARGETS: readonly Target[] = [
  {
    name: 'REST semantic search (256 KiB)',
    path: '/api/v1/docs/semantic-search/',
    headers: () => ({ 'x-api-key': served.apiKey, 'content-type': 'application/json' }),
    bytes: 3_900_000,
    status: 413,
    body: { error: 'Request body too large (limit 256 KiB)' },
  },
  {
    name: 'web interface settings (256 KiB)',
    path: '/web/api/settings',
    headers: () => ({ 'x-api-key': served.apiKey, 'content-type': 'application/json', origin: served.base }),
    bytes: 1 * MiB,
    status: 413,
    body: { msg: 'Request body too large (limit 256 KiB)' },
  },
  {
    name: '/mcp (4 MiB)',
    path: '/mcp',
    headers: () => JSON_AND_SSE,
    bytes: 5 * MiB,
    status: 413,
    body: { jsonrpc: '2.0', error: { code: -32600, message: 'Request body too large (limit 4 MiB)' }, id: null },
  },
];

/** A JSON text of `bytes` bytes: a question padded with x. */
const padded = (bytes: number): Buffer => {
  const head = '{"question": "';
  const tail = '"}';
  return Buffer.from(head + 'x'.repeat(bytes - head.length - tail.length) + tail);
};

interface Outcome {
  status?: number;
  text?: string;
  error?: string;
}

/**
 * A raw socket, declaring the length: the headers and a first piece, then the rest only once
 * the whole refusal has come back, in pieces, each after the last was taken. A server that
 * closes after refusing breaks the rest of the upload (EPIPE, ECONNRESET); one that reads it
 * lets it finish, then closes.
 */
function sendAfterRefusal(target: Target): Promise<Outcome> {
  const body = padded(target.bytes);
  const url = new URL(served.base);
  return new Promise((resolve) => {
    const outcome: Outcome = {};
    let received = Buffer.alloc(0);
    const first = 16 * 1024;
    let sending = false;
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      outcome.error ??= error.code ?? error.message;
    });
    socket.on('close', () => resolve(outcome));
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data]);
      const response = parseResponse(received);
      if (response === undefined) return;
      outcome.status = response.status;
      outcome.text = response.text;
      if (!sending) {
        sending = true;
        writeInPieces(socket, body, first);
      }
    });
    const headers = Object.entries({ ...target.headers(), host: url.host, 'content-length': String(body.length) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST ${target.path} HTTP/1.1\r\n${headers}\r\n`);
    socket.write(body.subarray(0, first));
  });
}

/** Writes `body` from `from` on, 64 KiB at a time, each piece once the last was taken; then ends. Stops at a failed write. */
function writeInPieces(stream: Writable, body: Buffer, from: number): void {
  let sent = from;
  const next = () => {
    if (stream.destroyed) return;
    if (sent >= body.length) {
      stream.end();
      return;
    }
    const piece = body.subarray(sent, sent + 64 * 1024);
    sent += piece.length;
    stream.write(piece, (error) => {
      if (error === null || error === undefined) setImmediate(next);
    });
  };
  next();
}

/** The status and body of a whole response with Content-Length; undefined while part of it is missing. */
function parseResponse(bytes: Buffer): { status: number; text: string } | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = bytes.subarray(0, end).toString('latin1');
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
  if (bytes.length < end + 4 + length) return undefined;
  return { status: Number(head.split(' ')[1]), text: bytes.subarray(end + 4, end + 4 + length).toString('utf8') };
}

/** node:http, declaring the length, writing pieces as fast as they are taken without waiting for the answer. */
function sendSlowly(target: Target): Promise<Outcome> {
  const body = padded(target.bytes);
  return new Promise((resolve) => {
    const outcome: Outcome = {};
    const req = httpRequest(new URL(target.path, served.base), { method: 'POST', headers: { ...target.headers(), 'content-length': String(body.length) } });
    req.on('error', (error: NodeJS.ErrnoException) => {
      outcome.error ??= error.code ?? error.message;
    });
    req.on('response', (res: IncomingMessage) => {
      outcome.status = res.statusCode;
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        outcome.text = Buffer.concat(parts).toString('utf8');
      });
    });
    req.on('close', () => setImmediate(() => resolve(outcome)));
    writeInPieces(req, body, 0);
  });
}

/** undici, the body a stream of pieces (no declared length: the cap is passed while reading). */
async function sendStreamed(target: Target): Promise<Outcome> {
  const body = padded(target.bytes);
  async function* pieces() {
    for (let at = 0; at < body.length; at += 64 * 1024) {
      yield body.subarray(at, at + 64 * 1024);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  try {
    const response = await request(new URL(target.path, served.base), { method: 'POST', headers: target.headers(), body: Readable.from(pieces()) });
    return { status: response.statusCode, text: await response.body.text() };
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}

/** undici, the whole body given at once with its length. */
async function sendWhole(target: Target): Promise<Outcome> {
  try {
    const response = await request(new URL(target.path, served.base), { method: 'POST', headers: target.headers(), body: padded(target.bytes) });
    return { status: response.statusCode, text: await response.body.text() };
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}

describe.each(TARGETS)('a refused body on $name', (target) => {
  const expected = { status: target.status, text: JSON.stringify(target.body) };
  it('lets a client that keeps sending after the refusal finish, and read the refusal', async () => {
    for (let round = 0; round < 3; round += 1) {
      const outcome = await sendAfterRefusal(target);
      expect(received(outcome)).toEqual({ ...expected, error: undefined });
    }
  });

  it('answers a node:http client writing its body piece by piece with the refusal, never a broken pipe', async () => {
    for (let round = 0; round < 3; round += 1) {
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => sendSlowly(target)));
      for (const outcome of outcomes) expect(received(outcome)).toEqual({ ...expected, error: undefined });
    }
  });

  it('answers every one of many concurrent oversized requests with the refusal (undici, declared and streamed)', async () => {
    for (let round = 0; round < 3; round += 1) {
      const outcomes = await Promise.all([...Array.from({ length: 5 }, () => sendWhole(target)), ...Array.from({ length: 5 }, () => sendStreamed(target))]);
      for (const outcome of outcomes) expect(received(outcome)).toEqual({ ...expected, error: undefined });
    }
  });
});

describe('a body refused before it is read for another reason', () => {
  it('is read to its end too: no key on REST, an unknown session on /mcp', async () => {
    const noKey = await sendAfterRefusal({ ...TARGETS[0]!, headers: () => ({ 'content-type': 'application/json' }), bytes: 100_000 });
    expect(received(noKey)).toEqual({ status: 401, text: JSON.stringify({ error: 'Invalid API key' }), error: undefined });
    const noSession = await sendAfterRefusal({ ...TARGETS[2]!, headers: () => ({ ...JSON_AND_SSE, 'mcp-session-id': 'gone' }), bytes: 100_000 });
    expect(received(noSession)).toEqual({ status: 404, text: JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Session not found' }, id: null }), error: undefined });
  });
});

const received = (outcome: Outcome) => ({ status: outcome.status, text: outcome.text, error: outcome.error });
