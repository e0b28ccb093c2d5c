/**
 * MCP over streamable HTTP on plain node:http, in both protocol eras.
 *
 * 2026-07-28 requests (they carry the per-request `_meta` envelope) go to the
 * SDK's stateless handler: a server per request, resource updates on
 * `subscriptions/listen` streams. 2025-era clients keep sessions: each session
 * (keyed by the `mcp-session-id` header) has its own transport and McpServer,
 * its GET stream carries resource updates, and a DELETE ends it.
 *
 * With `requireBearer`, every request carries `Authorization: Bearer <guru API
 * key>` and reaches only that key's guru: a session stays with the key that
 * opened it, a 2026-07-28 request is served by the handler of its key's guru
 * (whose listen streams hear only of that guru). Host and
 * Origin validation is the mounting server's job (src/http/server.ts), in
 * front of both eras.
 *
 * Clients often go away without a DELETE (the SDK client's close() sends
 * none), so sessions also end when idle for `sessionIdleMs`, and at most
 * `maxSessions` live at once: opening one more closes the least recently used.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isInitializeRequest, isJSONRPCRequest, isLegacyRequest, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { AuthInfo, McpServer, McpHttpHandler as McpHandler } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import type { NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import type { Backend } from '../core/assistant.js';
import { Errors } from '../core/errors.js';
// The HTTP server's body reader: a leaf module on node:http alone, so the MCP endpoint shares it without a cycle.
import { BodyBudgetError, BodyTooLargeError, MiB, readJsonBody, type BodyBudget } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { describeError, type Logger } from '../log.js';
import type { RateLimiter } from '../state/rate-limiter.js';
import { GuruSelector } from './gurus.js';
import { createMcpServer, whenClosed } from './server.js';
import type { ToolGroup } from './tool-groups.js';
import { ListenWatches } from './subscriptions.js';

export interface McpHttpHandlerOptions {
  readonly backend: Backend;
  readonly logger: Logger;
  /** Demand a guru API key as bearer token and limit each session to that guru (any non-loopback binding). */
  readonly requireBearer: boolean;
  /** A session without a request in flight or a GET stream open for this long is closed; DEFAULT_SESSION_IDLE_MS. */
  readonly sessionIdleMs?: number;
  /** Sessions kept at most; opening one more closes the least recently used; DEFAULT_MAX_SESSIONS. */
  readonly maxSessions?: number;
  /** Milliseconds since the epoch, for idle times. */
  readonly clock?: () => number;
  /** How often a subscribed data-sources resource is looked at; DATA_SOURCE_POLL_MS. */
  readonly dataSourcePollMs?: number;
  /** The REST API's rate limit, charged by every tool call (src/mcp/rate-limit.ts); its owner closes it. */
  readonly limiter?: RateLimiter;
  /** The server's budget of bodies read at once, shared with the REST API; none: bodies are only capped. */
  readonly bodies?: BodyBudget;
  /** The tool groups offered, with their resources (GURU_TOOLS); every group when absent. */
  readonly tools?: readonly ToolGroup[];
}

export interface McpHttpHandler {
  /** Serves one request to the MCP endpoint; the request body must not have been read yet. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ends every session. */
  close(): Promise<void>;
}

export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 1000;
/** Idle sessions are looked for at least this often (and whenever a session opens). */
const SWEEP_INTERVAL_MS = 60_000;

/** Largest body read here: every POST to the endpoint, of a session or not, is read by readJson. */
const MAX_BODY_BYTES = 4 * MiB;
const REALM = 'guru-mcp';
/** JSON-RPC error code of transport-level refusals (the SDK's own use of it: no session, bad Host, ...). */
const CONNECTION_REFUSED = -32000;

interface Session {
  readonly id: string;
  readonly transport: NodeStreamableHTTPServerTransport;
  readonly server: McpServer;
  /** The guru of the key that opened the session; undefined when no key is required. */
  readonly scope: string | undefined;
  /** Responses of this session still open: requests in flight and GET streams. */
  open: number;
  /** When a response of this session last opened or closed. */
  lastActive: number;
}

/** The SDK's 2026-07-28 handler and its node:http face. */
interface ModernHandler {
  readonly handler: McpHandler;
  readonly serve: NodeMcpRequestHandler;
}

type Authentication = { ok: true; scope: string | undefined; key?: string } | { ok: false; reason: 'missing' | 'invalid' | 'unsupported' };

/** A request as the SDK's node transports read it: `auth` becomes the handlers' `ctx.http.authInfo`. */
type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export function createMcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const { backend, logger, requireBearer, dataSourcePollMs, limiter, bodies, tools } = options;
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const now = options.clock ?? Date.now;
  if (!(idleMs > 0)) throw new RangeError(`sessionIdleMs must be positive, got ${idleMs}`);
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError(`maxSessions must be a positive integer, got ${maxSessions}`);

  /** Live sessions, least recently used first: every use moves a session to the end. */
  const sessions = new Map<string, Session>();
  /** Watches behind the open 2026-07-28 listen requests. */
  const listening = new Set<ListenWatches>();
  let closing = false;
  /**
   * The 2026-07-28 handlers, one per guru a key reaches (and one for no key):
   * each builds its servers for that guru, and its listen streams only hear
   * of that guru's resources.
   */
  const modern = new Map<string | undefined, ModernHandler>();
  function modernFor(scope: string | undefined): ModernHandler {
    let handler = modern.get(scope);
    if (handler === undefined) {
      const fetchHandler = createMcpHandler(
        ({ era }) =>
          createMcpServer({
            backend,
            logger,
            era,
            ...(scope === undefined ? {} : { scope }),
            ...(dataSourcePollMs === undefined ? {} : { dataSourcePollMs }),
            ...(limiter === undefined ? {} : { limiter }),
            ...(tools === undefined ? {} : { tools }),
          }),
        { legacy: 'reject', maxRequestBodySize: MAX_BODY_BYTES, onerror: (error) => logger.debug('mcp http', { error: error.message }) },
      );
      handler = { handler: fetchHandler, serve: toNodeHandler(fetchHandler, { maxRequestBodySize: MAX_BODY_BYTES }) };
      modern.set(scope, handler);
    }
    return handler;
  }
  const sweeper = setInterval(sweep, Math.min(idleMs, SWEEP_INTERVAL_MS));
  sweeper.unref();

  if (requireBearer && backend.admin === undefined) {
    logger.warn('mcp http: API keys cannot be checked with this backend; every /mcp request will be refused');
  }

  function touch(session: Session): void {
    session.lastActive = now();
    if (sessions.get(session.id) !== session) return; // already ended
    sessions.delete(session.id);
    sessions.set(session.id, session);
  }

  /** Counts `res` as activity of `session` until it closes. */
  function track(session: Session, res: ServerResponse): void {
    session.open += 1;
    touch(session);
    res.once('close', () => {
      session.open -= 1;
      touch(session);
    });
  }

  function end(session: Session, reason: 'idle' | 'evicted'): void {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    logger.debug('mcp http session ended', { session: session.id, reason });
    session.server.close().catch((error: unknown) => {
      logger.warn('mcp http session did not close cleanly', { session: session.id, error: describeError(error) });
    });
  }

  /** Ends the sessions idle for longer than `idleMs`. */
  function sweep(): void {
    const at = now();
    for (const session of sessions.values()) {
      if (session.open > 0) continue;
      // Idle sessions sit in the order they went idle, so the first recent one ends the search.
      if (at - session.lastActive <= idleMs) break;
      end(session, 'idle');
    }
  }

  /**
   * Makes room for one session: the least recently used idle one goes, else the least recently
   * used one in use of the newcomer's own guru. Another guru's live session never goes (a key
   * must not be able to end other gurus' connections by opening sessions): with none to end,
   * the pool grows past its size for as long as those connections stay open.
   */
  function evictFor(newcomer: Session): void {
    while (sessions.size > maxSessions) {
      let idle: Session | undefined;
      let ownInUse: Session | undefined;
      for (const session of sessions.values()) {
        if (session === newcomer) continue;
        if (session.open === 0) {
          idle = session;
          break;
        }
        if (session.scope === newcomer.scope) ownInUse ??= session;
      }
      const victim = idle ?? ownInUse;
      if (victim === undefined) return;
      end(victim, 'evicted');
    }
  }

  async function authenticate(req: IncomingMessage): Promise<Authentication> {
    if (!requireBearer) return { ok: true, scope: undefined };
    if (backend.admin === undefined) return { ok: false, reason: 'unsupported' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match) return { ok: false, reason: 'missing' };
    const key = match[1] as string;
    const scope = await backend.admin.authenticate(key);
    return scope === undefined ? { ok: false, reason: 'invalid' } : { ok: true, scope, key };
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, scope: string | undefined) {
    sweep();
    const server = createMcpServer({
      backend,
      logger,
      era: 'legacy',
      ...(scope === undefined ? {} : { scope }),
      ...(dataSourcePollMs === undefined ? {} : { dataSourcePollMs }),
      ...(limiter === undefined ? {} : { limiter }),
      ...(tools === undefined ? {} : { tools }),
    });
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: Session = { id, transport, server, scope, open: 0, lastActive: now() };
        sessions.set(id, session);
        track(session, res);
        logger.debug('mcp http session opened', { session: id, guru: scope });
        evictFor(session);
      },
      // The transport closes itself after a DELETE, which also ends the server's connection.
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    whenClosed(server, () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.get(id)?.server === server) {
        sessions.delete(id);
      }
      if (id !== undefined) logger.debug('mcp http session closed', { session: id });
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize that failed leaves a transport without a session: nothing will reach it again.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close();
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      throw new HttpProblem(405, CONNECTION_REFUSED, 'Method not allowed', { allow: 'GET, POST, DELETE' });
    }
    if (closing) throw new HttpProblem(503, CONNECTION_REFUSED, 'Server is shutting down');

    const auth = await authenticate(req);
    if (!auth.ok) return unauthorized(res, auth.reason);
    // Handed to the tools (as `ctx.http.authInfo`) by both eras' transports: the key their calls are charged to.
    if (auth.key !== undefined) (req as AuthenticatedRequest).auth = { token: auth.key, clientId: auth.scope ?? '', scopes: [] };

    const sessionId = headerValue(req.headers['mcp-session-id']);
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) throw new HttpProblem(404, CONNECTION_REFUSED, 'Session not found');
      if (session.scope !== auth.scope) {
        throw new HttpProblem(403, CONNECTION_REFUSED, 'This session was opened with the API key of another guru');
      }
      track(session, res);
      // Read here rather than by the transport, so that a body over the cap is refused as every other (readJson).
      const body = method === 'POST' ? await readJson(req, res, bodies) : undefined;
      await session.transport.handleRequest(req, res, body);
      return;
    }

    if (method !== 'POST') throw new HttpProblem(400, CONNECTION_REFUSED, 'Bad Request: No valid session ID provided');
    const body = await readJson(req, res, bodies);
    if (await isLegacyRequest(await toWebRequest(req, body), body, { maxRequestBodySize: MAX_BODY_BYTES })) {
      if (!isInitializeRequest(body)) throw new HttpProblem(400, CONNECTION_REFUSED, 'Bad Request: No valid session ID provided');
      await openSession(req, res, body, auth.scope);
      return;
    }
    const handler = modernFor(auth.scope);
    if (isJSONRPCRequest(body) && body.method === 'subscriptions/listen') watchWhileListening(res, body.id, body.params, auth.scope, handler.handler);
    await handler.serve(req, res, body);
  }

  /** Watches the data-sources resources a listen request names until its stream closes. */
  function watchWhileListening(res: ServerResponse, id: string | number, params: unknown, scope: string | undefined, handler: McpHandler): void {
    const watches = new ListenWatches(
      { assistant: backend.assistant, gurus: new GuruSelector(backend, scope), logger },
      (uri) => handler.notify.resourceUpdated(uri),
      dataSourcePollMs,
    );
    listening.add(watches);
    void watches.open(id, params);
    res.once('close', () => {
      listening.delete(watches);
      watches.close();
    });
  }

  return {
    async handle(req, res) {
      try {
        await serve(req, res);
      } catch (error) {
        if (error instanceof HttpProblem) {
          sendError(res, error.status, error.code, error.message, error.headers);
          return;
        }
        // The client went away while its body waited for room in the budget: nobody to answer.
        if (error instanceof Error && error.name === 'AbortError' && res.destroyed) return;
        logger.error('mcp http request failed', { error: describeError(error) });
        sendError(res, 500, ProtocolErrorCode.InternalError, 'Internal server error');
      }
    },

    async close() {
      closing = true;
      clearInterval(sweeper);
      for (const watches of listening) watches.close();
      listening.clear();
      const open = [...sessions.values()];
      sessions.clear();
      const handlers = [...modern.values()].map((each) => each.handler);
      modern.clear();
      await Promise.allSettled([...handlers.map((handler) => handler.close()), ...open.map((session) => session.server.close())]);
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
  const message =
    reason === 'unsupported'
      ? 'Invalid API key: this server cannot check API keys for remote MCP clients'
      : 'Invalid API key: send the header "Authorization: Bearer <API key of a guru>"; `guru-mcp key create <slug>` makes one';
  sendError(res, 401, CONNECTION_REFUSED, message, { 'www-authenticate': challenge });
}

function sendError(res: ServerResponse, status: number, code: number, message: string, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/** The request's body as JSON; too large, no room in the budget, or not JSON is an HttpProblem. */
async function readJson(req: IncomingMessage, res: ServerResponse, bodies: BodyBudget | undefined): Promise<unknown> {
  let body;
  try {
    body = await readJsonBody(req, { limit: MAX_BODY_BYTES, share: bodies?.share(res) });
  } catch (error) {
    // The refusal reads and drops the rest before the connection closes (sendJson).
    if (error instanceof BodyTooLargeError) {
      throw new HttpProblem(413, ProtocolErrorCode.InvalidRequest, Errors.bodyTooLarge('admin', error.limit / MiB).message);
    }
    if (error instanceof BodyBudgetError) {
      const busy = Errors.bodiesBusy('admin', error.retryAfterSeconds);
      throw new HttpProblem(503, CONNECTION_REFUSED, busy.message, { 'retry-after': String(error.retryAfterSeconds) });
    }
    throw error;
  }
  if (!body.ok) throw new HttpProblem(400, ProtocolErrorCode.ParseError, 'Parse error: the body is not valid JSON');
  return body.value;
}
