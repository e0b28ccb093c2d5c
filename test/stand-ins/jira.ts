/**
 * A Jira stand-in speaking the REST API v2 the way Jira Cloud documents it:
 * GET /rest/api/2/issue/{key}?fields=… (user, status, issue type and priority
 * objects, wiki-markup description, embedded comment page) and
 * GET /rest/api/2/issue/{key}/comment?startAt=&maxResults=. Basic email:token
 * for Cloud, Bearer personal access token for Server/Data Center.
 */
import { basicCredentials, bearerToken, json, type LoopbackServer, type RecordedRequest, type Reply, replying, startLoopbackServer } from '../support/loopback-server.js';

export interface JiraCommentFixture {
  readonly author: string;
  /** Wiki markup. */
  readonly body: string;
  /** Jira's timestamp form, e.g. `2024-03-01T09:15:00.000+0000`. */
  readonly created: string;
  /** A role the comment is restricted to. */
  readonly visibleTo?: string;
}

export interface JiraIssueFixture {
  readonly key: string;
  readonly summary: string;
  /** Wiki markup; null for none. */
  readonly description?: string | null;
  readonly type?: string;
  readonly status?: string;
  readonly priority?: string;
  readonly reporter?: string;
  readonly assignee?: string | null;
  readonly created?: string;
  readonly updated?: string;
  readonly comments?: readonly JiraCommentFixture[];
}

export interface JiraStandInOptions {
  readonly issues: readonly JiraIssueFixture[];
  /** With an email the site is Cloud (Basic email:token); without, Server/DC (Bearer token). */
  readonly email?: string;
  readonly apiToken: string;
  /** At most this many comments come embedded in the issue; the rest only from the comment endpoint. Default: all. */
  readonly embeddedComments?: number;
  /** Comments per page of the comment endpoint at most. Default 50. */
  readonly commentPageSize?: number;
  /** A Server/DC context path such as `/jira`. Default none. */
  readonly contextPath?: string;
}

export interface JiraStandIn {
  readonly server: LoopbackServer;
  /** The site's base URL, with the context path. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

const NOT_AUTHENTICATED = { errorMessages: ['You are not authenticated. Authentication required to perform this operation.'], errors: {} };
const NO_ISSUE = { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} };

export async function startJiraStandIn(options: JiraStandInOptions): Promise<JiraStandIn> {
  const context = options.contextPath ?? '';
  const issues = new Map(options.issues.map((issue) => [issue.key, issue]));
  const server = await startLoopbackServer(replying((request) => {
    if (!authorized(request, options)) return json(401, NOT_AUTHENTICATED, { 'www-authenticate': 'Basic realm="protected-area"' });
    const site = `${server.origin}${context}`;
    const path = request.url.pathname;
    const comments = new RegExp(`^${context}/rest/api/2/issue/([^/]+)/comment$`).exec(path);
    if (comments?.[1]) return commentPage(site, issues.get(comments[1]), request, options);
    const issue = new RegExp(`^${context}/rest/api/2/issue/([^/]+)$`).exec(path);
    if (issue?.[1]) {
      const fixture = issues.get(issue[1]);
      return fixture ? json(200, issueJson(site, fixture, request, options)) : json(404, NO_ISSUE);
    }
    return json(404, { errorMessages: [`No resource at ${path}`], errors: {} });
  }));
  return { server, baseUrl: `${server.origin}${context}`, close: () => server.close() };
}

function authorized(request: RecordedRequest, options: JiraStandInOptions): boolean {
  return options.email === undefined
    ? bearerToken(request.headers) === options.apiToken
    : basicCredentials(request.headers) === `${options.email}:${options.apiToken}`;
}

function issueJson(site: string, issue: JiraIssueFixture, request: RecordedRequest, options: JiraStandInOptions): object {
  const id = String(10_000 + Number(issue.key.split('-')[1] ?? 0));
  const all = issue.comments ?? [];
  const embedded = all.slice(0, options.embeddedComments ?? all.length);
  const fields: Record<string, unknown> = {
    summary: issue.summary,
    description: issue.description ?? null,
    issuetype: { self: `${site}/rest/api/2/issuetype/10001`, id: '10001', description: '', iconUrl: `${site}/images/icons/issuetypes/bug.svg`, name: issue.type ?? 'Task', subtask: false },
    status: {
      self: `${site}/rest/api/2/status/3`,
      description: '',
      iconUrl: `${site}/images/icons/statuses/inprogress.png`,
      name: issue.status ?? 'To Do',
      id: '3',
      statusCategory: { self: `${site}/rest/api/2/statuscategory/4`, id: 4, key: 'indeterminate', colorName: 'yellow', name: 'In Progress' },
    },
    priority: issue.priority === undefined ? null : { self: `${site}/rest/api/2/priority/3`, iconUrl: `${site}/images/icons/priorities/medium.svg`, name: issue.priority, id: '3' },
    reporter: issue.reporter === undefined ? null : user(site, issue.reporter),
    assignee: issue.assignee ? user(site, issue.assignee) : null,
    created: issue.created ?? '2024-01-10T08:00:00.000+0000',
    updated: issue.updated ?? '2024-01-11T08:00:00.000+0000',
    comment: {
      comments: embedded.map((comment, index) => commentJson(site, id, comment, index)),
      self: `${site}/rest/api/2/issue/${id}/comment`,
      maxResults: embedded.length,
      total: all.length,
      startAt: 0,
    },
  };
  const wanted = request.url.searchParams.get('fields')?.split(',');
  const selected = wanted ? Object.fromEntries(Object.entries(fields).filter(([name]) => wanted.includes(name))) : fields;
  return {
    expand: 'renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations',
    id,
    self: `${site}/rest/api/2/issue/${id}`,
    key: issue.key,
    fields: selected,
  };
}

function commentPage(site: string, issue: JiraIssueFixture | undefined, request: RecordedRequest, options: JiraStandInOptions): Reply {
  if (!issue) return json(404, NO_ISSUE);
  const id = String(10_000 + Number(issue.key.split('-')[1] ?? 0));
  const all = issue.comments ?? [];
  const startAt = Number(request.url.searchParams.get('startAt') ?? 0);
  const maxResults = Math.min(Number(request.url.searchParams.get('maxResults') ?? 50), options.commentPageSize ?? 50);
  const page = all.slice(startAt, startAt + maxResults);
  return json(200, {
    startAt,
    maxResults,
    total: all.length,
    comments: page.map((comment, index) => commentJson(site, id, comment, startAt + index)),
  });
}

function commentJson(site: string, issueId: string, comment: JiraCommentFixture, index: number): object {
  const id = String(20_000 + index);
  return {
    self: `${site}/rest/api/2/issue/${issueId}/comment/${id}`,
    id,
    author: user(site, comment.author),
    body: comment.body,
    updateAuthor: user(site, comment.author),
    created: comment.created,
    updated: comment.created,
    jsdPublic: true,
    ...(comment.visibleTo ? { visibility: { type: 'role', value: comment.visibleTo, identifier: comment.visibleTo } } : {}),
  };
}

function user(site: string, displayName: string): object {
  const accountId = `5b10a2844c2016570${Buffer.from(displayName).toString('hex').slice(0, 7)}`;
  return {
    self: `${site}/rest/api/2/user?accountId=${accountId}`,
    accountId,
    avatarUrls: {
      '48x48': `${site}/secure/useravatar?size=large&ownerId=${accountId}`,
      '24x24': `${site}/secure/useravatar?size=small&ownerId=${accountId}`,
      '16x16': `${site}/secure/useravatar?size=xsmall&ownerId=${accountId}`,
      '32x32': `${site}/secure/useravatar?size=medium&ownerId=${accountId}`,
    },
    displayName,
    active: true,
    timeZone: 'Europe/Berlin',
    accountType: 'atlassian',
  };
}
