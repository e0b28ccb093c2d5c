/**
 * What the Jira, Zendesk and Confluence readers share: one site's REST API
 * reached through the HttpFetcher with the integration's credentials, JSON
 * answers checked against a schema, and refusals (401/403/404) turned into
 * SourceErrors that say what to fix. 429, 5xx and transport failures stay
 * FetchFailures, so the job queue retries them.
 */
import type * as z from 'zod';
import { FetchFailure, type HttpFetcher } from '../../../net/http-fetcher.js';
import { SourceError } from './types.js';

/** Explains a refusal status for the item being read; undefined leaves the FetchFailure as it is. */
export type RefusalMessage = (status: number) => string | undefined;

export class IntegrationApi {
  readonly #fetcher: HttpFetcher;
  readonly #authorization: string;
  /** The site as a directory URL (trailing slash), so relative API paths resolve under it. */
  readonly base: URL;
  /** Names the service in messages: "Jira", "Zendesk", "Confluence". */
  readonly service: string;

  constructor(fetcher: HttpFetcher, service: string, baseUrl: string, authorization: string) {
    this.#fetcher = fetcher;
    this.#authorization = authorization;
    this.service = service;
    this.base = siteUrl(service, baseUrl);
  }

  /** The base URL as configured, without the trailing slash. */
  get site(): string {
    return this.base.href.replace(/\/$/, '');
  }

  /** True when `url` is on the configured site (same host, under its path). */
  covers(url: URL): boolean {
    return url.host === this.base.host && `${url.pathname}/`.startsWith(this.base.pathname);
  }

  /** The path of `url` below the site's own path, without a leading slash. */
  relativePath(url: URL): string {
    return url.pathname.slice(this.base.pathname.length).replace(/^\/+/, '');
  }

  async getJson<T>(path: string | URL, schema: z.ZodType<T>, refusal: RefusalMessage, signal?: AbortSignal): Promise<T> {
    const url = new URL(path, this.base);
    if (!this.covers(url)) {
      throw new SourceError(`${this.service} pointed at ${url.href}, outside the integration's base URL ${this.site}; the integration's credentials are not sent there`);
    }
    let body: unknown;
    try {
      const response = await this.#fetcher.get(url, {
        headers: { authorization: this.#authorization },
        accept: 'application/json',
        ...(signal ? { signal } : {}),
      });
      body = response.json();
    } catch (error) {
      if (error instanceof FetchFailure && error.kind === 'http_status' && error.status !== undefined) {
        const message = refusal(error.status) ?? defaultRefusal(this, error.status);
        if (message !== undefined) throw new SourceError(message, { cause: error });
      }
      throw error;
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new SourceError(
        `${this.service} answered ${url.href} with JSON of an unexpected shape (${parsed.error.issues[0]?.message ?? 'invalid'}); ` +
          `check that ${this.site} is the integration's ${this.service} site`,
      );
    }
    return parsed.data;
  }
}

function defaultRefusal(api: IntegrationApi, status: number): string | undefined {
  if (status === 401) {
    return `${api.service} answered 401: ${api.site} refused the integration's credentials; check the ${api.service} integration's email and API token`;
  }
  return undefined;
}

export function basicAuthorization(user: string, secret: string): string {
  return `Basic ${Buffer.from(`${user}:${secret}`, 'utf8').toString('base64')}`;
}

/** Atlassian's rule for Jira and Confluence: Cloud takes the account email and an API token (Basic), Server and Data Center a personal access token (Bearer). */
export function atlassianAuthorization(email: string | undefined, token: string): string {
  return email ? basicAuthorization(email, token) : `Bearer ${token}`;
}

/** Parses a user-given source URL, or says what kind of URL was expected. */
export function parseSourceUrl(input: string, expected: string): URL {
  try {
    return new URL(input);
  } catch {
    throw new SourceError(`${input} is not a URL; give ${expected}`);
  }
}

function siteUrl(service: string, baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new SourceError(`The ${service} integration's base URL "${baseUrl}" is not a URL; configure it as https://your-site…`);
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** `2024-01-17T12:34:56.000+0000` → `2024-01-17`; anything unparsable as it is. */
export function formatDate(value: string): string {
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? value : time.toISOString().slice(0, 10);
}

/** `2024-01-17T12:34:56Z` → `2024-01-17 12:34 UTC`. */
export function formatDateTime(value: string | undefined | null): string {
  if (!value) return 'undated';
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? value : `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
