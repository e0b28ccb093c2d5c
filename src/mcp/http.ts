/**
 * MCP over streamable HTTP on plain node:http, stateful: each session (keyed
 * by the `mcp-session-id` header) has its own transport and McpServer, and a
 * DELETE ends it. With `requireBearer`, every request carries
 * `Authorization: Bearer <guru API key>`, and the session only reaches that
 * key's guru. Host-header validation is the mounting server's job.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Backend } from '../core/assistant.js';
import { describeError, type Logger } from '../log.js';
import { createMcpServer } from './server.js';

export interface McpHttpHandlerOptions {
  readonly backend: Backend;
  readonly logger: Logger;
  /** Demand a guru API key as bearer token and limit each session to that guru (any non-loopback binding). */
  readonly requireBearer: boolean;
}

export interface McpHttpHandler {
  /** Serves one request to the MCP endpoint; the request body must not have been read yet. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ends every session. */
  close(): Promise<void>;
}

/** Largest initialize body read here; later requests are read by the transport with the same bound. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const REALM = 'guru-mcp';

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** The guru of the key that opened the session; undefined when no key is required. */
  readonly scope: string | undefined;
}

type Authentication = { ok: true; scope: string | undefined } | { ok: false; reason: 'missing' | 'invalid' | 'unsupported' };

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export function createMcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const { backend, logger, requireBearer } = options;
  const sessions = new Map<string, Session>();
  let closing = false;

  if (requireBearer && backend.admin === undefined) {
    logger.warn('mcp http: API keys cannot be checked with this backend; every /mcp request will be refused');
  }

  async function authenticate(req: IncomingMessage): Promise<Authentication> {
    if (!requireBearer) return { ok: true, scope: undefined };
    if (backend.admin === undefined) return { ok: false, reason: 'unsupported' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match) return { ok: false, reason: 'missing' };
    const scope = await backend.admin.authenticate(match[1] as string);
    return scope === undefined ? { ok: false, reason: 'invalid' } : { ok: true, scope };
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, scope: string | undefined) {
    const server = createMcpServer({ backend, logger, ...(scope === undefined ? {} : { scope }) });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, scope });
        logger.debug('mcp http session opened', { session: id, guru: scope });
      },
      // The transport closes itself after a DELETE, which also ends the server's connection.
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    server.server.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.get(id)?.server === server) {
        sessions.delete(id);
      }
      if (id !== undefined) logger.debug('mcp http session closed', { session: id });
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize that failed leaves a transport without a session: nothing will reach it again.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close();
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      res.setHeader('Allow', 'GET, POST, DELETE');
      throw new HttpProblem(405, ErrorCode.ConnectionClosed, 'Method not allowed');
    }
    if (closing) throw new HttpProblem(503, ErrorCode.ConnectionClosed, 'Server is shutting down');

    const auth = await authenticate(req);
    if (!auth.ok) return unauthorized(res, auth.reason);

    const sessionId = headerValue(req.headers['mcp-session-id']);
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) throw new HttpProblem(404, ErrorCode.ConnectionClosed, 'Session not found');
      if (session.scope !== auth.scope) {
        throw new HttpProblem(403, ErrorCode.ConnectionClosed, 'This session was opened with the API key of another guru');
      }
      await session.transport.handleRequest(req, res);
      return;
    }

    if (method !== 'POST') throw new HttpProblem(400, ErrorCode.ConnectionClosed, 'Bad Request: No valid session ID provided');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) {
      throw new HttpProblem(400, ErrorCode.ConnectionClosed, 'Bad Request: No valid session ID provided');
    }
    await openSession(req, res, body, auth.scope);
  }

  return {
    async handle(req, res) {
      try {
        await serve(req, res);
      } catch (error) {
        if (error instanceof HttpProblem) {
          sendError(res, error.status, error.code, error.message);
          return;
        }
        logger.error('mcp http request failed', { error: describeError(error) });
        sendError(res, 500, ErrorCode.InternalError, 'Internal server error');
      }
    },

    async close() {
      closing = true;
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((session) => session.server.close()));
    },
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function unauthorized(res: ServerResponse, reason: 'missing' | 'invalid' | 'unsupported'): void {
  const challenge =
    reason === 'missing'
      ? `Bearer realm="${REALM}"`
      : `Bearer realm="${REALM}", error="invalid_token", error_description="Invalid API key"`;
  res.setHeader('WWW-Authenticate', challenge);
  const message =
    reason === 'unsupported'
      ? 'Invalid API key: this server cannot check API keys for remote MCP clients'
      : 'Invalid API key: send the header "Authorization: Bearer <API key of a guru>"; `guru-mcp key create <slug>` makes one';
  sendError(res, 401, ErrorCode.ConnectionClosed, message);
}

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new HttpProblem(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
  }
}

function tooLarge(): HttpProblem {
  return new HttpProblem(413, ErrorCode.InvalidRequest, `Request body larger than ${MAX_BODY_BYTES} bytes`);
}
