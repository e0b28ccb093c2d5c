/**
 * Jira issues through the REST API v2: summary, metadata, the description and
 * every comment (wiki markup converted to Markdown). Jira Cloud takes Basic
 * `email:apiToken`; Server and Data Center take a personal access token as Bearer.
 */
import * as z from 'zod';
import type { HttpFetcher } from '../../../net/http-fetcher.js';
import { atlassianAuthorization, formatDate, formatDateTime, IntegrationApi, parseSourceUrl, type RefusalMessage } from './integration-api.js';
import { SourceError, type ReadDocument, type SourceReader } from './types.js';
import { wikiMarkupToMarkdown } from './wiki-markup.js';

export interface JiraSettings {
  /** The site, e.g. `https://example.atlassian.net` or `https://jira.example.com/jira`. */
  readonly baseUrl: string;
  /** Jira Cloud account email; absent for a Server/Data Center personal access token. */
  readonly email?: string;
  readonly apiToken: string;
}

const ISSUE_FIELDS = 'summary,description,comment,status,issuetype,priority,reporter,assignee,created,updated';
const COMMENT_PAGE_SIZE = 100;
const ISSUE_KEY = /^[A-Za-z][A-Za-z0-9_]*-\d+$/;

const User = z.object({ displayName: z.string().optional(), name: z.string().optional() }).nullish();
const Named = z.object({ name: z.string() }).nullish();
const Comment = z.object({
  author: User,
  body: z.string().nullish(),
  created: z.string().nullish(),
  visibility: z.object({ value: z.string() }).nullish(),
});
const CommentPage = z.object({
  comments: z.array(Comment),
  startAt: z.number().optional(),
  total: z.number().optional(),
});
const Issue = z.object({
  key: z.string(),
  fields: z.object({
    summary: z.string().nullish(),
    description: z.string().nullish(),
    status: Named,
    issuetype: Named,
    priority: Named,
    reporter: User,
    assignee: User,
    created: z.string().nullish(),
    updated: z.string().nullish(),
    comment: CommentPage.nullish(),
  }),
});
type User = z.infer<typeof User>;
type Comment = z.infer<typeof Comment>;
type Issue = z.infer<typeof Issue>;

export class JiraReader implements SourceReader {
  readonly #api: IntegrationApi;

  constructor(fetcher: HttpFetcher, settings: JiraSettings) {
    this.#api = new IntegrationApi(fetcher, 'Jira', settings.baseUrl, atlassianAuthorization(settings.email, settings.apiToken));
  }

  async read(url: string, signal?: AbortSignal): Promise<ReadDocument> {
    const key = this.#issueKey(url);
    const refusal = this.#refusal(key);
    const issue = await this.#api.getJson(`rest/api/2/issue/${key}?fields=${ISSUE_FIELDS}`, Issue, refusal, signal);
    const comments = await this.#comments(issue, refusal, signal);
    const fields = issue.fields;
    const title = `${issue.key}: ${fields.summary?.trim() || 'Untitled issue'}`;
    const parts = [`# ${title}`, metadataLine(issue)];
    const description = fields.description?.trim();
    if (description) parts.push('## Description', wikiMarkupToMarkdown(description, { headingOffset: 2 }));
    if (comments.length > 0) {
      parts.push('## Comments');
      for (const comment of comments) {
        const restricted = comment.visibility ? ` (visible to ${comment.visibility.value})` : '';
        parts.push(`### ${userName(comment.author)} — ${formatDateTime(comment.created)}${restricted}`);
        const body = comment.body?.trim();
        if (body) parts.push(wikiMarkupToMarkdown(body, { headingOffset: 3 }));
      }
    }
    return { title, markdown: `${parts.join('\n\n')}\n`, url: new URL(`browse/${issue.key}`, this.#api.base).href };
  }

  /** `/browse/KEY-1`, `/…/issues/KEY-1`, or `?selectedIssue=KEY-1`, on the configured site. */
  #issueKey(input: string): string {
    const example = `${this.#api.site}/browse/KEY-123`;
    const url = parseSourceUrl(input, `a Jira issue URL such as ${example}`);
    if (!this.#api.covers(url)) {
      throw new SourceError(
        `${input} is not under the Jira integration's base URL ${this.#api.site}; ` +
          `add issues of that site only, or configure the Jira integration for the other site`,
      );
    }
    const segments = this.#api.relativePath(url).split('/');
    const marker = segments.findIndex((segment) => segment === 'browse' || segment === 'issues');
    const candidate = url.searchParams.get('selectedIssue') ?? (marker === -1 ? undefined : segments[marker + 1]);
    if (!candidate || !ISSUE_KEY.test(candidate)) {
      throw new SourceError(`${input} is not a Jira issue URL; give one such as ${example}`);
    }
    return candidate.toUpperCase();
  }

  /** The comments the issue embeds, and the rest page by page when Jira held some back. */
  async #comments(issue: Issue, refusal: RefusalMessage, signal: AbortSignal | undefined): Promise<Comment[]> {
    const embedded = issue.fields.comment;
    if (!embedded) return [];
    const comments = [...embedded.comments];
    const total = embedded.total ?? comments.length;
    let startAt = (embedded.startAt ?? 0) + embedded.comments.length;
    while (comments.length < total) {
      const path = `rest/api/2/issue/${issue.key}/comment?startAt=${startAt}&maxResults=${COMMENT_PAGE_SIZE}`;
      const page = await this.#api.getJson(path, CommentPage, refusal, signal);
      if (page.comments.length === 0) break;
      comments.push(...page.comments);
      startAt += page.comments.length;
    }
    return comments;
  }

  #refusal(key: string): RefusalMessage {
    const site = this.#api.site;
    return (status) => {
      switch (status) {
        case 401:
          return `Jira answered 401: ${site} refused the integration's credentials; check the Jira integration's email and API token (or personal access token)`;
        case 403:
          return `Jira answered 403: the integration's account may not see issue ${key} on ${site}; grant it access to the project`;
        case 404:
          return `Jira answered 404: issue ${key} does not exist or the integration's account cannot see it`;
        default:
          return undefined;
      }
    };
  }
}

function metadataLine(issue: Issue): string {
  const fields = issue.fields;
  return [
    fields.issuetype && `Type: ${fields.issuetype.name}`,
    fields.status && `Status: ${fields.status.name}`,
    fields.priority && `Priority: ${fields.priority.name}`,
    fields.reporter && `Reporter: ${userName(fields.reporter)}`,
    `Assignee: ${fields.assignee ? userName(fields.assignee) : 'Unassigned'}`,
    fields.created && `Created: ${formatDate(fields.created)}`,
    fields.updated && `Updated: ${formatDate(fields.updated)}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

function userName(user: User): string {
  return user?.displayName ?? user?.name ?? 'Unknown user';
}
