/**
 * Resources: a guru's session list and its data sources (collections, listed
 * once per guru, read page by page with `?page=N`), and one conversation (the
 * target of an answer's `question_url`), reached through its template only, so
 * that resources/list does not grow with use. Variables complete.
 */
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { McpServer, ReadResourceResult, ResourceMetadata, ServerContext, Variables } from '@modelcontextprotocol/server';
import type { Assistant } from '../core/assistant.js';
import { isGuruError } from '../core/errors.js';
import { describeError, type Logger } from '../log.js';
import type { GuruSelector } from './gurus.js';
import type { McpRateLimit } from './rate-limit.js';
import { renderConversation } from './render.js';
import { toSourcePage } from './source-page.js';
import { dataSourcesUri, sessionsUri } from '../core/uris.js';

/** Sources on the data-sources resource; list_sources pages through the rest. */
export const RESOURCE_SOURCE_PAGE_SIZE = 100;
/** The highest `?page=N` a collection resource takes; larger numbers name no resource. */
const MAX_RESOURCE_PAGE = 1_000_000;
/** Completion values returned at most (the protocol's own cap). */
const MAX_COMPLETIONS = 100;

export interface ResourceContext {
  readonly assistant: Assistant;
  readonly gurus: GuruSelector;
  readonly logger: Logger;
  /** Charges reads to the rate limit (streamable HTTP); stdio has none. */
  readonly rateLimit?: McpRateLimit;
}

/** Which resources a connection has: they follow its tool groups (src/mcp/tool-groups.ts). */
export interface OfferedResources {
  /** The session list and single conversations (group asking). */
  readonly sessions: boolean;
  /** The data-source list (group knowledge). */
  readonly dataSources: boolean;
}

export function registerResources(server: McpServer, context: ResourceContext, offered: OfferedResources = { sessions: true, dataSources: true }): void {
  const { assistant, gurus } = context;
  const completeGuru = async (value: string) => (await safely(context, () => gurus.known())).filter((slug) => slug.startsWith(value));

  if (offered.sessions) {
    const readSessions = (uri: URL, variables: Variables, extra: ServerContext) =>
      read(context, uri, async () => {
        const guru = slugOf(variables, gurus);
        const page = pageOf(variables);
        await context.rateLimit?.chargeRead('list_sessions', guru, extra);
        const list = await assistant.listSessions(guru, { page_num: page, search_query: '' });
        return json(uri, { ...list, next_page_uri: list.has_more ? `${sessionsUri(guru)}?page=${page + 1}` : null });
      });
    registerCollection(
      server,
      'sessions',
      'guru://{guru_slug}/sessions',
      {
        list: async () => ({ resources: (await gurus.known()).map((guru) => ({ uri: sessionsUri(guru), name: `${guru} sessions` })) }),
        complete: { guru_slug: completeGuru },
      },
      {
        title: 'Conversation sessions of a guru',
        description:
          'Conversation sessions of a guru, newest first, grouped into today, last_week and older, as JSON; next_page_uri reads the next page (…/sessions?page=2). Each session: guru://{guru_slug}/sessions/{session_id}.',
        mimeType: 'application/json',
      },
      readSessions,
    );
    registerSession(server, context, completeGuru);
  }

  if (offered.dataSources) {
    registerCollection(
      server,
      'data-sources',
      'guru://{guru_slug}/data-sources',
      {
        list: async () => ({ resources: (await gurus.known()).map((guru) => ({ uri: dataSourcesUri(guru), name: `${guru} data sources` })) }),
        complete: { guru_slug: completeGuru },
      },
      {
        title: 'Data sources of a guru',
        description: `Data sources of a guru, newest first, ${RESOURCE_SOURCE_PAGE_SIZE} a page, with their processing status, as JSON; count is the total, next_page_uri reads the next page (…/data-sources?page=2). Subscribe to the first page to be notified (resources/updated) when the count or a status changes.`,
        mimeType: 'application/json',
      },
      (uri, variables, extra) =>
        read(context, uri, async () => {
          const guru = slugOf(variables, gurus);
          const page = pageOf(variables);
          await context.rateLimit?.chargeRead('list_sources', guru, extra);
          const sources = toSourcePage(await assistant.listDataSources(guru, { page, page_size: RESOURCE_SOURCE_PAGE_SIZE }));
          return json(uri, { ...sources, next_page_uri: sources.next_page === null ? null : `${dataSourcesUri(guru)}?page=${sources.next_page}` });
        }),
    );
  }
}

type ReadTemplate = (uri: URL, variables: Variables, extra: ServerContext) => Promise<ReadResourceResult>;
type TemplateCallbacks = ConstructorParameters<typeof ResourceTemplate>[1];

/**
 * A collection: `uriTemplate` (its first page, listed once per guru) and `uriTemplate{?page}`
 * (any page; the SDK matches a query variable only when the URI carries it), read alike.
 */
function registerCollection(server: McpServer, name: string, uriTemplate: string, callbacks: TemplateCallbacks, metadata: ResourceMetadata, readPage: ReadTemplate): void {
  server.registerResource(name, new ResourceTemplate(uriTemplate, callbacks), metadata, readPage);
  server.registerResource(
    `${name}-page`,
    new ResourceTemplate(`${uriTemplate}{?page}`, { list: undefined, ...(callbacks.complete === undefined ? {} : { complete: callbacks.complete }) }),
    { ...metadata, title: `${metadata.title ?? name}, one page` },
    readPage,
  );
}

/** One conversation, reached through its template (answers link to it); never listed one by one. */
function registerSession(server: McpServer, context: ResourceContext, completeGuru: (value: string) => Promise<string[]>): void {
  const { assistant, gurus } = context;
  server.registerResource(
    'session',
    new ResourceTemplate('guru://{guru_slug}/sessions/{session_id}', {
      list: undefined,
      complete: {
        guru_slug: completeGuru,
        session_id: async (value, completion) =>
          safely(context, async () => {
            const requested = completion?.arguments?.guru_slug;
            const guru = await gurus.select('list_sessions', requested === undefined || requested === '' ? undefined : requested);
            const list = await assistant.listSessions(guru, { page_num: 1, search_query: '' });
            return [...list.today, ...list.last_week, ...list.older].map((session) => session.id).filter((id) => id.startsWith(value));
          }),
      },
    }),
    {
      title: 'A conversation session',
      description: 'One conversation with a guru in Markdown: every question, answer, references and trust score. Answers link here (question_url).',
      mimeType: 'text/markdown',
    },
    async (uri, variables, extra) =>
      read(context, uri, async () => {
        const guru = slugOf(variables, gurus);
        await context.rateLimit?.chargeRead('get_session', guru, extra);
        const sessionId = decoded(single(variables.session_id));
        const session = await assistant.getSession(guru, sessionId);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: renderConversation(session, session.conversation, 1) }] };
      }),
  );
}

export class ResourceNotFound extends Error {}

export function single(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/** A percent-encoded URI part; a malformed encoding names no resource. */
export function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch (error) {
    if (error instanceof URIError) throw new ResourceNotFound();
    throw error;
  }
}

/** The page a collection URI names: 1 without `?page`, else a whole number from 1 to MAX_RESOURCE_PAGE. */
function pageOf(variables: Variables): number {
  if (variables.page === undefined) return 1;
  const text = single(variables.page);
  const page = Number(text);
  if (!/^\d+$/.test(text) || page < 1 || page > MAX_RESOURCE_PAGE) throw new ResourceNotFound();
  return page;
}

/** The guru of a resource URI, if this connection may reach it. */
export function slugOf(variables: Variables, gurus: GuruSelector): string {
  const slug = single(variables.guru_slug);
  if (!gurus.allows(slug)) throw new ResourceNotFound();
  return slug;
}

function json(uri: URL, value: unknown): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
}

/**
 * Runs a read. A guru or session that does not exist (or is out of reach) is
 * "Resource … not found"; other GuruErrors keep their message; anything else
 * is logged and reported without internals.
 */
export async function read(context: ResourceContext, uri: URL, body: () => Promise<ReadResourceResult>): Promise<ReadResourceResult> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ResourceNotFound || (isGuruError(error) && (error.status === 404 || error.status === 403))) {
      throw new ResourceNotFoundError(uri.href, `Resource ${uri.href} not found`);
    }
    // Throttled: the message and the wait, as a tool says them.
    if (isGuruError(error)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.status === 429 && error.hint !== undefined ? `${error.message} ${error.hint}` : error.message);
    context.logger.error('mcp resource read failed', { uri: uri.href, error: describeError(error) });
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal server error');
  }
}

/** Completion never fails the request: on any error it offers nothing. */
export async function safely(context: ResourceContext, body: () => Promise<string[]>): Promise<string[]> {
  try {
    return (await body()).slice(0, MAX_COMPLETIONS);
  } catch (error) {
    context.logger.debug('mcp completion failed', { error: describeError(error) });
    return [];
  }
}
