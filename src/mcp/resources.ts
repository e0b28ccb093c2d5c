/**
 * Resources: a guru's session list, one conversation (the target of an
 * answer's `question_url`) and the first page of its data sources. Each has a
 * list callback and completion of its variables.
 */
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { McpServer, ReadResourceResult, Resource, Variables } from '@modelcontextprotocol/server';
import type { Assistant } from '../core/assistant.js';
import { isGuruError } from '../core/errors.js';
import { describeError, type Logger } from '../log.js';
import type { GuruSelector } from './gurus.js';
import type { McpRateLimit } from './rate-limit.js';
import { renderConversation } from './render.js';
import { toSourcePage } from './source-page.js';
import { dataSourcesUri, sessionsUri, sessionUri } from '../core/uris.js';

/** Sources on the data-sources resource; list_sources pages through the rest. */
export const RESOURCE_SOURCE_PAGE_SIZE = 100;
/** Completion values returned at most (the protocol's own cap). */
const MAX_COMPLETIONS = 100;

export interface ResourceContext {
  readonly assistant: Assistant;
  readonly gurus: GuruSelector;
  readonly logger: Logger;
  /** Charges reads to the rate limit (streamable HTTP); stdio has none. */
  readonly rateLimit?: McpRateLimit;
}

export function registerResources(server: McpServer, context: ResourceContext): void {
  const { assistant, gurus } = context;
  const completeGuru = async (value: string) => (await safely(context, () => gurus.known())).filter((slug) => slug.startsWith(value));

  server.registerResource(
    'sessions',
    new ResourceTemplate('guru://{guru_slug}/sessions', {
      list: async () => ({
        resources: (await gurus.known()).map((guru) => ({ uri: sessionsUri(guru), name: `${guru} sessions` })),
      }),
      complete: { guru_slug: completeGuru },
    }),
    {
      title: 'Conversation sessions of a guru',
      description: 'The most recent conversation sessions of a guru (first page), grouped into today, last_week and older, as JSON.',
      mimeType: 'application/json',
    },
    async (uri, variables, extra) =>
      read(context, uri, async () => {
        const guru = slugOf(variables, gurus);
        await context.rateLimit?.chargeRead('list_sessions', guru, extra);
        const list = await assistant.listSessions(guru, { page_num: 1, search_query: '' });
        return json(uri, list);
      }),
  );

  server.registerResource(
    'session',
    new ResourceTemplate('guru://{guru_slug}/sessions/{session_id}', {
      list: async () => {
        const resources: Resource[] = [];
        for (const guru of await gurus.known()) {
          const list = await assistant.listSessions(guru, { page_num: 1, search_query: '' });
          for (const session of [...list.today, ...list.last_week, ...list.older]) {
            resources.push({
              uri: sessionUri(guru, session.id),
              name: session.root_question_name || session.id,
              description: `Conversation in ${guru}, last used ${session.last_used}`,
              mimeType: 'text/markdown',
            });
          }
        }
        return { resources };
      },
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

  server.registerResource(
    'data-sources',
    new ResourceTemplate('guru://{guru_slug}/data-sources', {
      list: async () => ({
        resources: (await gurus.known()).map((guru) => ({ uri: dataSourcesUri(guru), name: `${guru} data sources` })),
      }),
      complete: { guru_slug: completeGuru },
    }),
    {
      title: 'Data sources of a guru',
      description: `The newest ${RESOURCE_SOURCE_PAGE_SIZE} data sources of a guru with their processing status, as JSON; count is the total, and the list_sources tool pages through all of them. Subscribe to be notified (resources/updated) when the count or a status changes.`,
      mimeType: 'application/json',
    },
    async (uri, variables, extra) =>
      read(context, uri, async () => {
        const guru = slugOf(variables, gurus);
        await context.rateLimit?.chargeRead('list_sources', guru, extra);
        const page = await assistant.listDataSources(guru, { page: 1, page_size: RESOURCE_SOURCE_PAGE_SIZE });
        return json(uri, toSourcePage(page));
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
