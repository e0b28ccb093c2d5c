/**
 * The spec's REST API under `/api/v1`. It only translates: match the route,
 * authenticate the key, read the body, rate-limit, validate with the core
 * schemas, call the port, serialize. Behaviour lives behind the port.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { askBodyCap } from '../core/attachment-limits.js';
import type { Backend, QuestionOrigin } from '../core/assistant.js';
import { Errors, isGuruError, type Operation } from '../core/errors.js';
import { parseRequest } from '../core/validate.js';
import { parseVoteRequest } from '../core/vote-request.js';
import {
  AnswerProgressQuery,
  AskRequest,
  CreateDataSourcesRequest,
  FollowUpRequest,
  ImportUrlRequest,
  ListDataSourcesQuery,
  ListSessionsRequest,
  MAX_ID_CHARS,
  ReindexRequest,
  DeleteDataSourcesRequest,
  SemanticSearchRequest,
  StartCrawlRequest,
  TextToSpeechRequest,
} from '../core/schemas.js';
import type { Answer, SessionList } from '../core/schemas.js';
import { describeError, type Logger } from '../log.js';
import type { RateLimiter } from '../state/rate-limiter.js';
import { BodyBudgetError, BodyTooLargeError, KiB, MiB, readBody, readJsonBody, type BodyBudget, type JsonBody } from './body.js';
import { sendGuruError, sendJson } from './respond.js';
import { endUserRoutes } from './end-user-routes.js';
import { createRouter, type RoutePattern } from './router.js';

export const REST_PREFIX = '/api/v1';

export interface ApiDependencies {
  readonly backend: Backend;
  readonly logger: Logger;
  readonly limiter: RateLimiter;
  /** The bytes of large bodies (routes capped over BODY_LIMITS.request) read at once, shared by every handler of the server; none: no budget. */
  readonly bodies?: BodyBudget | undefined;
}

export interface RestApiOptions extends ApiDependencies {
  /** The URL clients reach the server at (GURU_PUBLIC_URL), for paging links; without it they are relative. */
  readonly publicUrl?: string;
  /**
   * Where a session can be read by people (the web interface's page), for an answer's
   * `question_url` and a session's `root_question_link`. Without it they stay as the
   * backend made them (the `guru://` session resource).
   */
  readonly sessionLink?: (sessionId: string) => string;
}

/** Answers one request whose path starts with REST_PREFIX; `url` is its path and query. */
export type RestHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

/** Marks a reply the route wrote to the response itself (a stream). */
const RESPONDED = Symbol('responded');
export type Reply = { readonly status: number; readonly json: unknown } | typeof RESPONDED;
export const ok = (json: unknown): Reply => ({ status: 200, json });

export interface RestCall {
  readonly res: ServerResponse;
  readonly headers: IncomingHttpHeaders;
  readonly url: URL;
  /** The guru of the caller's key (and of the path, where it names one); '' on routes open to anyone. */
  readonly guru: string;
  readonly params: Readonly<Record<string, string>>;
  /** The parsed JSON body; `{}` when the body is empty or the route takes bytes. */
  readonly body: unknown;
  /** The body as sent, on a route that takes `bytes`; empty on the others (their body is parsed as it arrives). */
  readonly raw: Buffer;
}

export interface RestRoute extends RoutePattern {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly operation: Operation;
  /** A number, or for routes whose cap is the guru's to set (ask's attachments), the cap of the caller's guru. */
  readonly maxBodyBytes: number | ((guru: string | undefined) => Promise<number>);
  /**
   * Where the operation names the end user it acts for (`external_user_id`), who
   * is then rate-limited apart from the key's other users. Nowhere else is the
   * member read, so a caller cannot pick a new end user per request to escape the
   * limit on other routes.
   */
  readonly endUserIn?: 'body' | 'query' | 'path';
  /** The operation erases its end user's data: what the rate limiter keeps of them goes too, once it succeeded. */
  readonly erasesEndUser?: true;
  /** What the body is: JSON (the default), or bytes handed over as they came (an uploaded file). */
  readonly bodyKind?: 'json' | 'bytes';
  /**
   * Who may call: a guru's key (the default), or anyone who reaches the server (only
   * routes of the operator on a loopback bind; such calls have no guru and no rate limit).
   */
  readonly access?: 'key' | 'anyone';
  readonly run: (call: RestCall) => Promise<Reply>;
}

/**
 * Body caps, sized to the largest request each route takes (the caps of
 * src/core/schemas.ts), so that a larger one is refused while it is read, before
 * any of it is parsed.
 */
export const BODY_LIMITS = {
  /** Routes that take no body (anything sent is ignored). */
  none: 16 * KiB,
  /**
   * A question, a URL or ids with their options: 10,000 characters written as
   * `\uXXXX` escapes are 60 KB; 10,000 reindex ids about 170 KB. The answer route
   * takes attachments besides: its cap follows the guru's attachment limits (askBodyCap).
   */
  request: 256 * KiB,
  /** Sources to add: one text source at its 5,000,000-character cap, as UTF-8 (up to 3 bytes a character). */
  sources: 16 * MiB,
} as const;

const STREAM_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

const AUDIO_STREAM_HEADERS = { ...STREAM_HEADERS, 'content-type': 'audio/mpeg' } as const;

export function createRestApi(options: RestApiOptions): RestHandler {
  const { backend, publicUrl, sessionLink } = options;
  const { assistant } = backend;
  const answerLinked = (answer: Answer): Answer =>
    sessionLink === undefined ? answer : { ...answer, question_url: sessionLink(answer.session_id) };
  const sessionsLinked = (list: SessionList): SessionList => {
    if (sessionLink === undefined) return list;
    const link = (summaries: SessionList['today']) => summaries.map((summary) => ({ ...summary, root_question_link: sessionLink(summary.id) }));
    return { ...list, today: link(list.today), last_week: link(list.last_week), older: link(list.older) };
  };

  const routes: RestRoute[] = [
    {
      method: 'POST',
      path: '/:guru_slug/answer',
      operation: 'ask',
      maxBodyBytes: async (guru) => {
        // The key was checked first (authenticate), so the guru exists.
        const settings = guru === undefined ? undefined : await backend.admin?.guruSettings(guru);
        return settings === undefined ? BODY_LIMITS.request : askBodyCap(settings.attachment_limits);
      },
      endUserIn: 'body',
      run: async ({ res, headers, guru, body }) => {
        const { stream, ...input } = parseRequest(AskRequest, body, 'ask');
        const signal = abortOnClose(res);
        const origin = originOf(headers);
        if (!stream) return ok(answerLinked(await assistant.ask(guru, input, { origin, signal })));
        return streamText(res, (onText) => assistant.ask(guru, input, { origin, signal, onText }));
      },
    },
    {
      method: 'POST',
      path: '/:guru_slug/follow-up/examples',
      operation: 'follow_up',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ guru, body }) => ok(await assistant.followUpExamples(guru, parseRequest(FollowUpRequest, body, 'follow_up'))),
    },
    {
      method: 'GET',
      path: '/:guru_slug/answer-progress',
      operation: 'answer_progress',
      maxBodyBytes: BODY_LIMITS.none,
      // Polls count against the end user's limit, shared with asking.
      endUserIn: 'query',
      run: async ({ guru, url }) => {
        const query = parseRequest(AnswerProgressQuery, { external_user_id: url.searchParams.get('external_user_id') ?? undefined }, 'answer_progress');
        return ok(await assistant.answerProgress(guru, query));
      },
    },
    ...([1, 2] as const).map(
      (version): RestRoute => ({
        method: 'POST',
        path: version === 1 ? '/:guru_slug/text-to-speech/stream' : '/:guru_slug/text-to-speech-v2/stream',
        operation: 'text_to_speech',
        maxBodyBytes: BODY_LIMITS.request,
        run: async ({ res, headers, guru, body }) => {
          const request = parseRequest(TextToSpeechRequest, body, 'text_to_speech');
          const options = { signal: abortOnClose(res), version, caller: keyNameOf(headers) };
          return streamBytes(res, await assistant.textToSpeech(guru, request, options));
        },
      }),
    ),
    {
      method: 'POST',
      path: '/:guru_slug/semantic-search',
      operation: 'semantic_search',
      maxBodyBytes: BODY_LIMITS.request,
      endUserIn: 'body',
      run: async ({ guru, body }) => ok(await assistant.semanticSearch(guru, parseRequest(SemanticSearchRequest, body, 'semantic_search'))),
    },
    {
      method: 'POST',
      path: '/:guru_slug/data-sources',
      operation: 'create_sources',
      maxBodyBytes: BODY_LIMITS.sources,
      run: async ({ guru, body }) =>
        ok(await assistant.createDataSources(guru, parseRequest(CreateDataSourcesRequest, body, 'create_sources'))),
    },
    {
      method: 'GET',
      path: '/:guru_slug/data-sources',
      operation: 'list_sources',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru, url }) => {
        const query = parseRequest(ListDataSourcesQuery, Object.fromEntries(url.searchParams), 'list_sources');
        const page = await assistant.listDataSources(guru, query);
        const hasNext = page.page * page.page_size < page.count;
        return ok({
          count: page.count,
          next: hasNext ? pageLink(publicUrl, url, page.page + 1, page.page_size) : null,
          previous: page.page > 1 ? pageLink(publicUrl, url, page.page - 1, page.page_size) : null,
          results: page.results,
        });
      },
    },
    {
      method: 'DELETE',
      path: '/:guru_slug/data-sources',
      operation: 'delete_sources',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ guru, body }) => ok(await assistant.deleteDataSources(guru, parseRequest(DeleteDataSourcesRequest, body, 'delete_sources'))),
    },
    {
      method: 'POST',
      path: '/:guru_slug/data-sources/reindex',
      operation: 'reindex_sources',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ guru, body }) => ok(await assistant.reindexDataSources(guru, parseRequest(ReindexRequest, body, 'reindex_sources'))),
    },
    {
      method: 'POST',
      path: '/:guru_slug/sessions',
      operation: 'list_sessions',
      maxBodyBytes: BODY_LIMITS.request,
      endUserIn: 'body',
      run: async ({ guru, body }) => ok(sessionsLinked(await assistant.listSessions(guru, parseRequest(ListSessionsRequest, body, 'list_sessions')))),
    },
    {
      method: 'POST',
      path: '/sessions/:session_id/conversation',
      operation: 'get_session',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru, params }) => ok(await assistant.getSession(guru, sessionIdOf(params, 'get_session'))),
    },
    {
      method: 'DELETE',
      path: '/sessions/:session_id/delete',
      operation: 'delete_session',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru, params }) => ok(await assistant.deleteSession(guru, sessionIdOf(params, 'delete_session'))),
    },
    {
      method: 'POST',
      path: '/:guru_slug/record_vote',
      operation: 'record_vote',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ guru, body }) => ok(await assistant.recordVote(guru, parseVoteRequest(body))),
    },
    {
      method: 'POST',
      path: '/:guru_slug/crawl/start',
      operation: 'start_crawl',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ guru, body }) => ok(await assistant.startCrawl(guru, parseRequest(StartCrawlRequest, body, 'start_crawl'))),
    },
    {
      method: 'GET',
      path: '/:guru_slug/crawl/:crawl_id/status',
      operation: 'crawl_status',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru, params }) => ok(await assistant.crawlStatus(guru, crawlIdOf(params, 'crawl_status'))),
    },
    {
      method: 'POST',
      path: '/:guru_slug/crawl/:crawl_id/stop',
      operation: 'stop_crawl',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru, params }) => ok(await assistant.stopCrawl(guru, crawlIdOf(params, 'stop_crawl'))),
    },
    // Video lists belong to no guru: any valid key may import them, rate-limited as its own guru's calls.
    {
      method: 'POST',
      path: '/youtube/channel',
      operation: 'import_channel',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ body }) => ok(await assistant.importChannel(parseRequest(ImportUrlRequest, body, 'import_channel'))),
    },
    {
      method: 'POST',
      path: '/youtube/playlist',
      operation: 'import_playlist',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ body }) => ok(await assistant.importPlaylist(parseRequest(ImportUrlRequest, body, 'import_playlist'))),
    },
    ...endUserRoutes(assistant),
  ];
  return createApiHandler(options, REST_PREFIX, routes);
}

/**
 * Answers requests under `prefix` from a table of routes: match the route,
 * authenticate the key, read the body, rate-limit, run, serialize, and answer
 * failures with the service's error bodies. The REST API is one such table; the
 * web interface's operator routes (src/web/) are another.
 */
export function createApiHandler(dependencies: ApiDependencies, prefix: string, routes: readonly RestRoute[]): RestHandler {
  const { backend, logger, limiter, bodies } = dependencies;
  const route = createRouter(routes);

  /**
   * The caller: a valid key, of the path's guru where the path names one. Without
   * a valid key nothing more is said (not even whether the guru exists); a valid
   * key on a guru that does not exist gets the operation's not-found answer, on
   * another guru that does, "Invalid API key" or "Forbidden".
   */
  async function authenticate(req: IncomingMessage, operation: Operation, params: Readonly<Record<string, string>>): Promise<Caller> {
    const apiKey = req.headers['x-api-key'];
    const admin = backend.admin;
    if (typeof apiKey !== 'string' || apiKey === '' || admin === undefined) throw Errors.invalidApiKey(operation);
    const guru = await admin.authenticate(apiKey);
    if (guru === undefined) throw Errors.invalidApiKey(operation);
    const named = params.guru_slug;
    if (named !== undefined && named !== guru) {
      const exists = (await admin.listGurus()).some(({ slug }) => slug === named);
      throw exists ? Errors.otherGurusKey(operation) : Errors.guruNotFound(operation, named);
    }
    return { guru, apiKey };
  }

  async function throttle(operation: Operation, caller: Caller, externalUserId: string | undefined): Promise<void> {
    let decision;
    try {
      decision = await limiter.consume({ ...caller, externalUserId });
    } catch (error) {
      // A broken state store must not take the API down with it.
      logger.warn('rate limiter unavailable; request let through', { error: describeError(error) });
      return;
    }
    if (!decision.allowed) throw Errors.throttled(operation, decision.retryAfterSeconds);
  }

  async function forget(guru: string, externalUserId: string): Promise<void> {
    try {
      await limiter.forget({ guru, externalUserId });
    } catch (error) {
      // The window runs out within a minute anyway; the erasure itself succeeded.
      logger.warn('rate limiter unavailable; an erased end user\'s window is left to expire', { error: describeError(error) });
    }
  }

  function fail(res: ServerResponse, operation: Operation, error: unknown): void {
    if (res.headersSent || res.destroyed) {
      // Mid-stream: the status is gone; cut the stream so the client sees it incomplete.
      if (!isAbort(error)) logger.error('request failed after the response started', { operation, error: describeError(error) });
      res.destroy();
      return;
    }
    // These two are sent before the rest of the body is read: sendJson reads and drops it, then closes.
    if (error instanceof BodyTooLargeError) {
      const tooLarge = Errors.bodyTooLarge(operation, error.limit / MiB);
      sendJson(res, tooLarge.status, tooLarge.toBody());
      return;
    }
    if (error instanceof BodyBudgetError) {
      logger.warn('request body refused: the body budget is full', { operation, heldBytes: bodies?.held });
      sendGuruError(res, Errors.bodiesBusy(operation, error.retryAfterSeconds));
      return;
    }
    if (isGuruError(error)) {
      if (error.status === 400) logger.debug('invalid request', { operation, detail: error.hint ?? error.message });
      sendGuruError(res, error);
      return;
    }
    logger.error('request failed', { operation, error: describeError(error) });
    sendGuruError(res, Errors.internal(operation));
  }

  return async (req, res, url) => {
    const found = route(req.method ?? 'GET', url.pathname.slice(prefix.length));
    if (found.kind === 'not_found') return sendJson(res, 404, { msg: 'Not found' });
    if (found.kind === 'method_not_allowed') {
      return sendJson(res, 405, { msg: 'Method not allowed' }, { allow: found.allow.join(', ') });
    }
    const { route: endpoint, params } = found;
    const operation = endpoint.operation;
    try {
      const caller = endpoint.access === 'anyone' ? undefined : await authenticate(req, operation, params);
      const cap = typeof endpoint.maxBodyBytes === 'number' ? endpoint.maxBodyBytes : await endpoint.maxBodyBytes(caller?.guru);
      // Small bodies (a question, ids) are left out of the budget: they never wait behind uploads.
      const reading = { limit: cap, share: cap > BODY_LIMITS.request ? bodies?.share(res) : undefined };
      let raw: Buffer = NO_BYTES;
      let body: JsonBody = { ok: true, value: undefined };
      if (endpoint.bodyKind === 'bytes') raw = await readBody(req, reading);
      else body = await readJsonBody(req, reading);
      const endUser = endUserOf(endpoint, body.ok ? body.value : undefined, url, params);
      if (caller !== undefined) await throttle(operation, caller, endUser);
      if (!body.ok) throw Errors.invalidInput(operation, body.problem);
      const reply = await endpoint.run({ res, headers: req.headers, url, guru: caller?.guru ?? '', params, body: body.value ?? {}, raw });
      if (endpoint.erasesEndUser && caller !== undefined && endUser !== undefined) await forget(caller.guru, endUser);
      if (reply !== RESPONDED) sendJson(res, reply.status, reply.json);
    } catch (error) {
      fail(res, operation, error);
    }
  };
}

/**
 * A name for the caller's key (authenticated by then) that is not the key itself: speech
 * caps the streams each key has open at once.
 */
function keyNameOf(headers: IncomingHttpHeaders): string {
  return `key:${createHash('sha256').update(String(headers['x-api-key'])).digest('base64url').slice(0, 22)}`;
}

const NO_BYTES = Buffer.alloc(0);

/** The web interface marks its requests (`x-guru-client: web`), so that its questions are stored with source `WEB`. */
function originOf(headers: IncomingHttpHeaders): QuestionOrigin {
  return headers['x-guru-client'] === 'web' ? 'WEB' : 'API';
}

interface Caller {
  readonly guru: string;
  readonly apiKey: string;
}

function sessionIdOf(params: Readonly<Record<string, string>>, operation: 'get_session' | 'delete_session'): string {
  const sessionId = params.session_id;
  if (sessionId === undefined || sessionId === '') throw Errors.invalidRequest(operation, 'the session id is missing from the path');
  if (sessionId.length > MAX_ID_CHARS) throw Errors.invalidInput(operation, `The session id must be at most ${MAX_ID_CHARS} characters`);
  return sessionId;
}

/** The crawl id of the path: a whole number (15 digits at most, so it is exact as a JS number). */
function crawlIdOf(params: Readonly<Record<string, string>>, operation: 'crawl_status' | 'stop_crawl'): number {
  const text = params.crawl_id ?? '';
  if (!/^\d{1,15}$/.test(text)) throw Errors.invalidRequest(operation, 'the crawl id in the path is not a whole number');
  return Number(text);
}

/** The end user a request is made for, where its operation defines one. */
function endUserOf(route: RestRoute, body: unknown, url: URL, params: Readonly<Record<string, string>>): string | undefined {
  if (route.endUserIn === 'path') return params.external_user_id;
  if (route.endUserIn === 'query') return url.searchParams.get('external_user_id') ?? undefined;
  if (route.endUserIn === 'body' && typeof body === 'object' && body !== null && 'external_user_id' in body) {
    return typeof body.external_user_id === 'string' ? body.external_user_id : undefined;
  }
  return undefined;
}

/**
 * The same listing at another page: under the configured public URL, else
 * relative to the server. Never from the request's Host header, which the
 * client chooses.
 */
function pageLink(publicUrl: string | undefined, url: URL, page: number, pageSize: number): string {
  const query = new URLSearchParams(url.searchParams);
  query.set('page', String(page));
  query.set('page_size', String(pageSize));
  return `${publicUrl ?? ''}${url.pathname}?${query.toString()}`;
}

/** Aborts the work behind a response when its client goes away first. */
function abortOnClose(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Streams text as the port writes it. Headers go out with the first piece, so an
 * error before it still becomes a JSON error body.
 */
async function streamText(res: ServerResponse, produce: (onText: (delta: string) => void) => Promise<Answer>): Promise<Reply> {
  const write = (text: string) => {
    if (res.destroyed) return;
    if (!res.headersSent) res.writeHead(200, STREAM_HEADERS);
    if (text !== '') res.write(text);
  };
  let written = false;
  const answer = await produce((delta) => {
    if (delta === '') return;
    written = true;
    write(delta);
  });
  // A backend that did not stream (or an existing answer) still sends its text.
  write(written ? '' : answer.content);
  res.end();
  return RESPONDED;
}

/**
 * Streams audio as the port produces it, no faster than the client reads it
 * (so a slow listener holds back synthesis rather than filling memory).
 */
async function streamBytes(res: ServerResponse, chunks: AsyncIterable<Uint8Array>): Promise<Reply> {
  res.writeHead(200, AUDIO_STREAM_HEADERS);
  for await (const chunk of chunks) {
    if (res.destroyed) break;
    if (!res.write(chunk)) await drainedOrClosed(res);
  }
  res.end();
  return RESPONDED;
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const isAbort = (error: unknown) => error instanceof Error && error.name === 'AbortError';
