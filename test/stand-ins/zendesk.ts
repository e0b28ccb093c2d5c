/**
 * A Zendesk stand-in speaking the Support and Help Center REST API v2 as
 * documented: GET /api/v2/tickets/{id}.json (ticket object, `include=users`
 * side-loading), GET /api/v2/tickets/{id}/comments.json with cursor pagination
 * (`page[size]`, `page[after]` → `meta.has_more`, `links.next`) or offset
 * pagination (`page`, `per_page` → `next_page`), and
 * GET /api/v2/help_center/{locale}/articles/{id}.json. Basic `{email}/token:{apiToken}`.
 */
import { basicCredentials, json, type LoopbackServer, type RecordedRequest, type Reply, replying, startLoopbackServer } from '../support/loopback-server.js';

export interface ZendeskUserFixture {
  readonly id: number;
  readonly name: string;
  readonly role?: 'end-user' | 'agent' | 'admin';
}

export interface ZendeskCommentFixture {
  readonly authorId: number;
  /** Plain text. */
  readonly body: string;
  /** Defaults to the body in one paragraph. */
  readonly htmlBody?: string;
  /** false for an internal note. Default true. */
  readonly public?: boolean;
  readonly createdAt: string;
}

export interface ZendeskTicketFixture {
  readonly id: number;
  readonly subject: string;
  readonly status?: string;
  readonly priority?: string | null;
  readonly type?: string | null;
  readonly requesterId: number;
  readonly assigneeId?: number | null;
  readonly tags?: readonly string[];
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly comments: readonly ZendeskCommentFixture[];
}

export interface ZendeskArticleFixture {
  readonly id: number;
  readonly locale: string;
  readonly title: string;
  /** HTML, as Help Center stores it. */
  readonly body: string;
  readonly authorId?: number;
}

export interface ZendeskStandInOptions {
  readonly email: string;
  readonly apiToken: string;
  readonly users?: readonly ZendeskUserFixture[];
  readonly tickets?: readonly ZendeskTicketFixture[];
  readonly articles?: readonly ZendeskArticleFixture[];
  /** Comments per page at most. Default 100. */
  readonly commentPageSize?: number;
  /** `offset` answers with `next_page` links even when cursor pagination is asked for. */
  readonly pagination?: 'as-requested' | 'offset';
}

export interface ZendeskStandIn {
  readonly server: LoopbackServer;
  /** `http://127.0.0.1:PORT`, standing for `https://SUBDOMAIN.zendesk.com`. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

const NOT_AUTHENTICATED = { error: "Couldn't authenticate you" };
const NOT_FOUND = { error: 'RecordNotFound', description: 'Not found' };

export async function startZendeskStandIn(options: ZendeskStandInOptions): Promise<ZendeskStandIn> {
  const tickets = new Map((options.tickets ?? []).map((ticket) => [String(ticket.id), ticket]));
  const server = await startLoopbackServer(replying((request) => {
    if (basicCredentials(request.headers) !== `${options.email}/token:${options.apiToken}`) return json(401, NOT_AUTHENTICATED);
    const site = server.origin;
    const path = request.url.pathname;
    const comments = /^\/api\/v2\/tickets\/(\d+)\/comments\.json$/.exec(path);
    if (comments?.[1]) {
      const ticket = tickets.get(comments[1]);
      return ticket ? commentPage(site, ticket, request, options) : json(404, NOT_FOUND);
    }
    const ticket = /^\/api\/v2\/tickets\/(\d+)\.json$/.exec(path);
    if (ticket?.[1]) {
      const fixture = tickets.get(ticket[1]);
      if (!fixture) return json(404, NOT_FOUND);
      const ids = [fixture.requesterId, fixture.assigneeId ?? undefined];
      return json(200, { ticket: ticketJson(site, fixture), ...sideloadedUsers(site, request, options, ids) });
    }
    const article = /^\/api\/v2\/help_center\/([\w-]+)\/articles\/(\d+)\.json$/.exec(path);
    if (article?.[1] && article[2]) {
      const fixture = options.articles?.find((candidate) => String(candidate.id) === article[2] && candidate.locale === article[1]);
      return fixture ? json(200, { article: articleJson(site, fixture) }) : json(404, NOT_FOUND);
    }
    return json(404, { error: 'InvalidEndpoint', description: 'Not found' });
  }));
  return { server, baseUrl: server.origin, close: () => server.close() };
}

function commentPage(site: string, ticket: ZendeskTicketFixture, request: RecordedRequest, options: ZendeskStandInOptions): Reply {
  const query = request.url.searchParams;
  const limit = options.commentPageSize ?? 100;
  const cursor = query.has('page[size]') && options.pagination !== 'offset';
  const size = Math.min(Number(query.get(cursor ? 'page[size]' : 'per_page') ?? limit), limit);
  const start = cursor ? decodeCursor(query.get('page[after]')) : (Number(query.get('page') ?? 1) - 1) * size;
  const page = ticket.comments.slice(start, start + size);
  const hasMore = start + size < ticket.comments.length;
  const endpoint = `${site}/api/v2/tickets/${ticket.id}/comments.json`;
  const include = query.get('include') === 'users' ? 'include=users&' : '';
  const body = {
    comments: page.map((comment, index) => commentJson(site, ticket, comment, start + index)),
    ...sideloadedUsers(site, request, options, page.map((comment) => comment.authorId)),
  };
  if (cursor) {
    const after = encodeCursor(start + size);
    return json(200, {
      ...body,
      meta: { has_more: hasMore, after_cursor: hasMore ? after : null, before_cursor: start > 0 ? encodeCursor(start) : null },
      links: {
        next: hasMore ? `${endpoint}?${include}page%5Bafter%5D=${after}&page%5Bsize%5D=${size}` : null,
        prev: start > 0 ? `${endpoint}?${include}page%5Bbefore%5D=${encodeCursor(start)}&page%5Bsize%5D=${size}` : null,
      },
    });
  }
  const pageNumber = start / size + 1;
  return json(200, {
    ...body,
    next_page: hasMore ? `${endpoint}?${include}page=${pageNumber + 1}&per_page=${size}` : null,
    previous_page: pageNumber > 1 ? `${endpoint}?${include}page=${pageNumber - 1}&per_page=${size}` : null,
    count: ticket.comments.length,
  });
}

function encodeCursor(index: number): string {
  return Buffer.from(JSON.stringify({ o: index })).toString('base64url');
}

function decodeCursor(cursor: string | null): number {
  if (!cursor) return 0;
  return (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o: number }).o;
}

function sideloadedUsers(site: string, request: RecordedRequest, options: ZendeskStandInOptions, ids: ReadonlyArray<number | undefined>): object {
  if (request.url.searchParams.get('include') !== 'users') return {};
  const wanted = new Set(ids.filter((id) => id !== undefined));
  const users = (options.users ?? []).filter((user) => wanted.has(user.id));
  return {
    users: users.map((user) => ({
      id: user.id,
      url: `${site}/api/v2/users/${user.id}.json`,
      name: user.name,
      email: `${user.name.toLowerCase().replace(/\W+/g, '.')}@example.com`,
      created_at: '2023-01-01T00:00:00Z',
      updated_at: '2023-01-01T00:00:00Z',
      time_zone: 'Europe/Berlin',
      locale: 'en-US',
      role: user.role ?? 'end-user',
      active: true,
      verified: true,
      photo: null,
    })),
  };
}

function ticketJson(site: string, ticket: ZendeskTicketFixture): object {
  return {
    url: `${site}/api/v2/tickets/${ticket.id}.json`,
    id: ticket.id,
    external_id: null,
    via: { channel: 'email', source: { from: {}, to: {}, rel: null } },
    created_at: ticket.createdAt ?? '2024-05-01T08:00:00Z',
    updated_at: ticket.updatedAt ?? '2024-05-02T08:00:00Z',
    generated_timestamp: 1714636800,
    type: ticket.type ?? null,
    subject: ticket.subject,
    raw_subject: ticket.subject,
    description: ticket.comments[0]?.body ?? '',
    priority: ticket.priority ?? null,
    status: ticket.status ?? 'open',
    recipient: 'support@example.zendesk.com',
    requester_id: ticket.requesterId,
    submitter_id: ticket.requesterId,
    assignee_id: ticket.assigneeId ?? null,
    organization_id: null,
    group_id: 360_000_001,
    collaborator_ids: [],
    follower_ids: [],
    email_cc_ids: [],
    forum_topic_id: null,
    problem_id: null,
    has_incidents: false,
    is_public: true,
    due_at: null,
    tags: ticket.tags ?? [],
    custom_fields: [],
    satisfaction_rating: null,
    sharing_agreement_ids: [],
    custom_status_id: 1,
    fields: [],
    followup_ids: [],
    ticket_form_id: 360_000_002,
    brand_id: 360_000_003,
    allow_channelback: false,
    allow_attachments: true,
    from_messaging_channel: false,
  };
}

function commentJson(site: string, ticket: ZendeskTicketFixture, comment: ZendeskCommentFixture, index: number): object {
  const html = comment.htmlBody ?? `<div class="zd-comment" dir="auto"><p>${escapeHtml(comment.body)}</p></div>`;
  return {
    id: 9_000_000 + ticket.id * 100 + index,
    type: 'Comment',
    author_id: comment.authorId,
    body: comment.body,
    html_body: html,
    plain_body: comment.body,
    public: comment.public ?? true,
    attachments: [],
    audit_id: 8_000_000 + ticket.id * 100 + index,
    via: { channel: index === 0 ? 'email' : 'web', source: { from: {}, to: {}, rel: null } },
    created_at: comment.createdAt,
    metadata: { system: { client: 'Mozilla/5.0', ip_address: '192.0.2.1', location: 'Berlin, Germany' }, custom: {} },
    url: `${site}/api/v2/tickets/${ticket.id}/comments/${index}.json`,
  };
}

function articleJson(site: string, article: ZendeskArticleFixture): object {
  const slug = article.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return {
    id: article.id,
    url: `${site}/api/v2/help_center/${article.locale}/articles/${article.id}.json`,
    html_url: `${site}/hc/${article.locale}/articles/${article.id}-${slug}`,
    author_id: article.authorId ?? 1,
    comments_disabled: false,
    draft: false,
    promoted: false,
    position: 0,
    vote_sum: 3,
    vote_count: 3,
    section_id: 360_000_010,
    created_at: '2024-02-01T10:00:00Z',
    updated_at: '2024-02-10T10:00:00Z',
    name: article.title,
    title: article.title,
    source_locale: article.locale,
    locale: article.locale,
    outdated: false,
    outdated_locales: [],
    edited_at: '2024-02-10T10:00:00Z',
    user_segment_id: null,
    permission_group_id: 360_000_020,
    content_tag_ids: [],
    label_names: ['guide'],
    body: article.body,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
