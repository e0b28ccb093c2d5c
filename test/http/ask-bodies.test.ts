/**
 * Large request bodies over real HTTP: attachments parsed as they arrive and decoded whole
 * however the body is cut, and the budget of bodies held at once (503 with Retry-After, or a
 * wait for room), on REST and /mcp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { BodyBudget, MiB } from '../../src/http/body.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';
import { createMcpHttpHandler } from '../../src/mcp/http.js';
import { reportPdf } from '../support/documents.js';
import { INITIALIZE, JSON_AND_SSE } from '../support/mcp-requests.js';
import { call } from './support.js';

let dataDir: string;
let backend: OpenedBackend;
let key: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-ask-bodies-'));
  backend = await openBackend(Config.parse({ dataDir }), silentLogger);
  key = (await backend.admin!.createGuru({ slug: 'docs', name: 'Docs' })).api_key;
  await backend.assistant.createDataSources('docs', { text_sources: [{ name: 'Install', content: '# Installing\n\nRun `npm install widget` to install the widget.' }] });
});

afterAll(async () => {
  await backend?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(bodies?: BodyBudget): Promise<string> {
  const limiter = await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 0 }), silentLogger);
  const mcp = createMcpHttpHandler({ backend, logger: silentLogger, requireBearer: false, ...(bodies === undefined ? {} : { bodies }) });
  server = await startHttpServer({ backend, logger: silentLogger, host: '127.0.0.1', port: 0, limiter, mcp, ...(bodies === undefined ? {} : { bodies }) });
  return server.url;
}

/** `bytes` cut into pieces of `size`, as a stream: sent without a declared length. */
const inPieces = (bytes: Buffer, size: number) => Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size)));

/** An ask of about `bytes` bytes: a log (skipped as over its limit when large) pads it. */
function paddedAsk(bytes: number): Buffer {
  const head = '{"question": "How do I install the widget?", "log_files": [{"name": "pad.log", "data": "';
  return Buffer.from(`${head}${'p'.repeat(bytes - head.length - 4)}"}]}`);
}

/** A request whose body is declared but only begun: it holds its share of the budget until `finish`. */
function begun(base: string, body: Buffer): { finish(): Promise<{ status: number; text: string }>; req: ClientRequest } {
  const req = httpRequest(`${base}/api/v1/docs/answer/`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': String(body.length) },
  });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
    });
  });
  req.write(body.subarray(0, 1024));
  return {
    req,
    finish: () => {
      req.end(body.subarray(1024));
      return response;
    },
  };
}

/** Resolves once `condition` holds, looking again after each turn of the event loop (no timing involved). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('attachments parsed as they arrive', () => {
  it('decodes a PDF, a log and an image sent in pieces of 1,000 bytes, as one whole body would be', async () => {
    const base = await serve(new BodyBudget(64 * MiB));
    const log = 'ligne 1: café ☕ démarré\n\t"quoted"\\backslash\nERROR quasargrid checksum mismatch — 😀';
    const pdf = Buffer.from(await reportPdf()).toString('base64');
    const body = Buffer.from(
      JSON.stringify({
        question: 'Which offices led the revenue growth?',
        pdf_files: [{ name: 'report.pdf', type: 'application/pdf', data: `data:application/pdf;base64,${pdf}` }],
        log_files: [{ name: 'crash.log', data: log }],
        images: [{ name: 'dot.png', type: 'image/png', data: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==' }],
      }),
    );
    for (const rawBody of [inPieces(body, 1000), body]) {
      const reply = await call(base, 'POST', '/api/v1/docs/answer/', { key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(reply.status).toBe(200);
      const answer = reply.json as { content: string; session_id: string; references: { title: string }[] };
      expect(answer.content).toContain('northern offices');
      expect(answer.references.map((reference) => reference.title)).toContain('report.pdf');
      // The log as sent, character for character (escapes and multi-byte characters cut across pieces).
      const stored = await backend.assistant.sessionAttachment('docs', answer.session_id, 1);
      expect(stored).toMatchObject({ name: 'crash.log', text: log });
    }
  });

  it('answers a body that is not JSON with 400 once it is read, and with 413 when it also passes the cap', async () => {
    const base = await serve(new BodyBudget(64 * MiB));
    const broken = (bytes: number) => inPieces(Buffer.from(`{"question": "x", oops ${'y'.repeat(bytes)}`), 65536);
    const reply = await call(base, 'POST', '/api/v1/docs/answer/', { key, rawBody: broken(2 * MiB) });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ msg: 'Invalid JSON body' });
    const tooLarge = await call(base, 'POST', '/api/v1/docs/answer/', { key, rawBody: broken(81 * MiB) });
    expect(tooLarge.status).toBe(413);
  });
});

describe('the budget of bodies held at once', () => {
  it('refuses a declared body that does not fit with 503 and Retry-After, before reading it; small requests still pass', async () => {
    const bodies = new BodyBudget(4 * MiB, { waitMs: 0 });
    const base = await serve(bodies);
    const holder = begun(base, paddedAsk(3 * MiB));
    await until(() => bodies.held === paddedAsk(3 * MiB).length);

    const refused = await call(base, 'POST', '/api/v1/docs/answer/', { key, rawBody: paddedAsk(2 * MiB), headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json).toEqual({ msg: 'The server is busy reading other large requests; try again in 5 seconds' });
    // Sent without its length: refused once its pieces pass the budget.
    const streamed = await call(base, 'POST', '/api/v1/docs/answer/', { key, rawBody: inPieces(paddedAsk(2 * MiB), 65536) });
    expect(streamed.status).toBe(503);
    // /mcp shares the budget.
    const mcp = await call(base, 'POST', '/mcp', { rawBody: Buffer.from(JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, pad: 'x'.repeat(2 * MiB) } })), headers: JSON_AND_SSE });
    expect(mcp.status).toBe(503);
    expect(mcp.headers['retry-after']).toBe('5');
    expect(mcp.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: 'The server is busy reading other large requests; try again in 5 seconds' } });
    // A small body is not counted: a search is answered meanwhile.
    const search = await call(base, 'POST', '/api/v1/docs/semantic-search/', { key, body: { question: 'install' } });
    expect(search.status).toBe(200);

    expect((await holder.finish()).status).toBe(200);
    await until(() => bodies.held === 0);
    const later = await call(base, 'POST', '/api/v1/docs/answer/', { key, rawBody: paddedAsk(2 * MiB), headers: { 'content-type': 'application/json' } });
    expect(later.status).toBe(200);
  });

  it('lets a declared body wait for room, and reads it once the one before is done', async () => {
    const bodies = new BodyBudget(4 * MiB);
    const base = await serve(bodies);
    const holder = begun(base, paddedAsk(3 * MiB));
    await until(() => bodies.held > 0);
    const waiting = call(base, 'POST', '/api/v1/docs/answer/', { key, rawBody: paddedAsk(2 * MiB), headers: { 'content-type': 'application/json' } });
    await until(() => bodies.waiting === 1);
    expect(bodies.held).toBe(paddedAsk(3 * MiB).length);
    expect((await holder.finish()).status).toBe(200);
    expect((await waiting).status).toBe(200);
    await until(() => bodies.held === 0);
  });

  it('reads a body larger than the whole budget when nothing else is held', async () => {
    const bodies = new BodyBudget(1 * MiB, { waitMs: 0 });
    const base = await serve(bodies);
    const reply = await call(base, 'POST', '/api/v1/docs/answer/', { key, rawBody: paddedAsk(2 * MiB), headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(200);
  });
});
