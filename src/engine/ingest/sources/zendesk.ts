/**
 * Zendesk Support tickets (with every comment, public replies and internal
 * notes told apart) and Help Center articles, through the REST API v2 with an
 * API token (Basic `{email}/token:{apiToken}`).
 */
import * as z from 'zod';
import type { HttpFetcher } from '../../../net/http-fetcher.js';
import type { MarkupConverter } from '../extract/extraction-pool.js';
import { basicAuthorization, formatDate, formatDateTime, IntegrationApi, parseSourceUrl, type RefusalMessage } from './integration-api.js';
import { SourceError, type ReadDocument, type SourceReader } from './types.js';

export interface ZendeskSettings {
  /** The account's site, e.g. `https://example.zendesk.com`. */
  readonly baseUrl: string;
  readonly email: string;
  readonly apiToken: string;
}

type ZendeskItem =
  | { readonly kind: 'ticket'; readonly id: string }
  | { readonly kind: 'article'; readonly id: string; readonly locale: string };

const Id = z.union([z.number(), z.string()]);
const Users = z.array(z.object({ id: Id, name: z.string().nullish() })).nullish();
const TicketAnswer = z.object({
  ticket: z.object({
    id: Id,
    subject: z.string().nullish(),
    raw_subject: z.string().nullish(),
    status: z.string().nullish(),
    priority: z.string().nullish(),
    type: z.string().nullish(),
    requester_id: Id.nullish(),
    assignee_id: Id.nullish(),
    tags: z.array(z.string()).nullish(),
    created_at: z.string().nullish(),
    updated_at: z.string().nullish(),
  }),
  users: Users,
});
const CommentPage = z.object({
  comments: z.array(
    z.object({
      id: Id.optional(),
      author_id: Id.nullish(),
      body: z.string().nullish(),
      html_body: z.string().nullish(),
      public: z.boolean().nullish(),
      created_at: z.string().nullish(),
    }),
  ),
  users: Users,
  // Cursor pagination…
  meta: z.object({ has_more: z.boolean() }).nullish(),
  links: z.object({ next: z.string().nullish() }).nullish(),
  // …and offset pagination.
  next_page: z.string().nullish(),
});
const ArticleAnswer = z.object({
  article: z.object({
    id: Id,
    title: z.string().nullish(),
    body: z.string().nullish(),
    locale: z.string().nullish(),
    updated_at: z.string().nullish(),
  }),
});
type Ticket = z.infer<typeof TicketAnswer>['ticket'];
type Comment = z.infer<typeof CommentPage>['comments'][number];

/** Enough for any real ticket; stops a server that keeps answering with a next page. */
const MAX_COMMENT_PAGES = 200;

export class ZendeskReader implements SourceReader {
  readonly #api: IntegrationApi;
  readonly #converter: MarkupConverter;

  constructor(fetcher: HttpFetcher, converter: MarkupConverter, settings: ZendeskSettings) {
    this.#converter = converter;
    this.#api = new IntegrationApi(fetcher, 'Zendesk', settings.baseUrl, basicAuthorization(`${settings.email}/token`, settings.apiToken));
  }

  async read(url: string, signal?: AbortSignal): Promise<ReadDocument> {
    const item = this.#item(url);
    return item.kind === 'ticket' ? this.#ticket(item.id, signal) : this.#article(item.id, item.locale, signal);
  }

  /** `/agent/tickets/{id}`, `/tickets/{id}`, `/hc/{locale}/requests/{id}`, `/hc/{locale}/articles/{id}-slug`. */
  #item(input: string): ZendeskItem {
    const examples = `${this.#api.site}/agent/tickets/123 or ${this.#api.site}/hc/en-us/articles/456-title`;
    const url = parseSourceUrl(input, `a Zendesk ticket or Help Center article URL such as ${examples}`);
    if (!this.#api.covers(url)) {
      throw new SourceError(
        `${input} is not under the Zendesk integration's base URL ${this.#api.site}; ` +
          `add tickets and articles of that account only, or configure the Zendesk integration for the other account`,
      );
    }
    const path = this.#api.relativePath(url).replace(/\/+$/, '');
    const ticket = /^(?:agent\/)?tickets\/(\d+)$/.exec(path) ?? /^hc\/[\w-]+\/requests\/(\d+)$/.exec(path);
    if (ticket?.[1]) return { kind: 'ticket', id: ticket[1] };
    const article = /^hc\/([A-Za-z]{2,3}(?:-[A-Za-z0-9]+)*)\/articles\/(\d+)(?:-[^/]*)?$/.exec(path);
    if (article?.[1] && article[2]) return { kind: 'article', id: article[2], locale: article[1].toLowerCase() };
    throw new SourceError(`${input} is not a Zendesk ticket or Help Center article URL; give one such as ${examples}`);
  }

  async #ticket(id: string, signal: AbortSignal | undefined): Promise<ReadDocument> {
    const refusal = this.#refusal(`ticket ${id}`);
    const answer = await this.#api.getJson(`api/v2/tickets/${id}.json?include=users`, TicketAnswer, refusal, signal);
    const names = new Map<string, string>();
    const remember = (users: z.infer<typeof Users>) => {
      for (const user of users ?? []) if (user.name) names.set(String(user.id), user.name);
    };
    remember(answer.users);
    const comments: Comment[] = [];
    let next: string | undefined = `api/v2/tickets/${id}/comments.json?include=users&page[size]=100`;
    for (let pages = 0; next !== undefined && pages < MAX_COMMENT_PAGES; pages++) {
      const page = await this.#api.getJson(next, CommentPage, refusal, signal);
      comments.push(...page.comments);
      remember(page.users);
      next = nextPage(page);
    }
    const ticket = answer.ticket;
    const subject = (ticket.subject ?? ticket.raw_subject)?.trim() || 'No subject';
    const title = `Ticket #${ticket.id}: ${subject}`;
    const person = (userId: z.infer<typeof Id> | null | undefined) =>
      userId === null || userId === undefined ? undefined : (names.get(String(userId)) ?? `user ${userId}`);
    const parts = [`# ${title}`, ticketMetadata(ticket, person)];
    if (comments.length > 0) {
      parts.push('## Comments');
      const bodies = await Promise.all(
        comments.map((comment) => (comment.html_body ? this.#converter.markupToMarkdown(comment.html_body, 'html') : (comment.body ?? '').trim())),
      );
      comments.forEach((comment, index) => {
        const visibility = comment.public === false ? 'Internal note' : 'Public reply';
        parts.push(`### ${visibility} — ${person(comment.author_id) ?? 'unknown author'} — ${formatDateTime(comment.created_at)}`);
        const body = bodies[index];
        if (body) parts.push(body);
      });
    }
    return { title, markdown: `${parts.join('\n\n')}\n`, url: new URL(`agent/tickets/${ticket.id}`, this.#api.base).href };
  }

  async #article(id: string, locale: string, signal: AbortSignal | undefined): Promise<ReadDocument> {
    const refusal = this.#refusal(`Help Center article ${id} (${locale})`);
    const { article } = await this.#api.getJson(`api/v2/help_center/${locale}/articles/${id}.json`, ArticleAnswer, refusal, signal);
    const title = article.title?.trim() || `Article ${article.id}`;
    const body = await this.#converter.markupToMarkdown(article.body ?? '', 'html');
    if (!body) throw new SourceError(`Zendesk Help Center article ${id} (${locale}) has no text to index`);
    return {
      title,
      markdown: `# ${title}\n\n${body}\n`,
      url: new URL(`hc/${article.locale ?? locale}/articles/${article.id}`, this.#api.base).href,
    };
  }

  #refusal(what: string): RefusalMessage {
    const site = this.#api.site;
    return (status) => {
      switch (status) {
        case 401:
          return `Zendesk answered 401: ${site} refused the integration's credentials; check the Zendesk integration's email and API token, and that token access is enabled`;
        case 403:
          return `Zendesk answered 403: the integration's account may not see ${what} on ${site}; use an agent or admin account`;
        case 404:
          return `Zendesk answered 404: ${what} does not exist or the integration's account cannot see it`;
        default:
          return undefined;
      }
    };
  }
}

function nextPage(page: z.infer<typeof CommentPage>): string | undefined {
  if (page.meta) return page.meta.has_more ? (page.links?.next ?? undefined) : undefined;
  return page.next_page ?? undefined;
}

function ticketMetadata(ticket: Ticket, person: (id: z.infer<typeof Id> | null | undefined) => string | undefined): string {
  const requester = person(ticket.requester_id);
  const assignee = person(ticket.assignee_id);
  return [
    ticket.status && `Status: ${ticket.status}`,
    ticket.priority && `Priority: ${ticket.priority}`,
    ticket.type && `Type: ${ticket.type}`,
    requester && `Requester: ${requester}`,
    `Assignee: ${assignee ?? 'Unassigned'}`,
    ticket.created_at && `Created: ${formatDate(ticket.created_at)}`,
    ticket.updated_at && `Updated: ${formatDate(ticket.updated_at)}`,
    ticket.tags && ticket.tags.length > 0 && `Tags: ${ticket.tags.join(', ')}`,
  ]
    .filter(Boolean)
    .join(' · ');
}
