import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ExtractionPool } from '../../../src/engine/ingest/extract/extraction-pool.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';
import { ZendeskReader } from '../../../src/engine/ingest/sources/zendesk.js';
import { FetchFailure, HttpFetcher } from '../../../src/net/http-fetcher.js';
import { startZendeskStandIn, type ZendeskStandIn, type ZendeskStandInOptions } from '../../stand-ins/zendesk.js';

const EMAIL = 'agent@example.com';
const TOKEN = 'zd-token-789';

const OPTIONS: ZendeskStandInOptions = {
  email: EMAIL,
  apiToken: TOKEN,
  users: [
    { id: 501, name: 'Jane Customer' },
    { id: 601, name: 'Alex Agent', role: 'agent' },
  ],
  tickets: [
    {
      id: 35436,
      subject: 'Export to CSV times out',
      status: 'open',
      priority: 'high',
      type: 'problem',
      requesterId: 501,
      assigneeId: 601,
      tags: ['export', 'enterprise'],
      createdAt: '2024-05-01T08:00:00Z',
      updatedAt: '2024-05-03T09:30:00Z',
      comments: [
        { authorId: 501, body: 'Exporting 50k rows fails after 30 seconds.', createdAt: '2024-05-01T08:00:00Z' },
        {
          authorId: 601,
          body: 'Looks like the report worker limit.',
          htmlBody: '<div class="zd-comment"><p>Looks like the <strong>report worker</strong> limit.</p><pre><code>worker.timeout = 30s</code></pre></div>',
          public: false,
          createdAt: '2024-05-01T09:00:00Z',
        },
        { authorId: 601, body: 'We raised the limit; please try again.', createdAt: '2024-05-02T10:00:00Z' },
        { authorId: 777, body: 'Works now, thanks!', createdAt: '2024-05-03T09:30:00Z' },
      ],
    },
  ],
  articles: [
    {
      id: 360012345,
      locale: 'en-us',
      title: 'How to export reports',
      body: '<p>Open <strong>Reports</strong> and choose <em>Export</em>.</p><h2>Large exports</h2><ul><li>Use CSV</li><li>Split by month</li></ul><pre><code class="language-bash">curl -O https://example.com/export.csv</code></pre>',
    },
  ],
  commentPageSize: 2,
};

let standIn: ZendeskStandIn | undefined;
let fetcher: HttpFetcher | undefined;
/** HTML bodies are converted in an extraction worker, as in the engine. */
const extraction = new ExtractionPool({ threads: 1 });

afterAll(async () => {
  await extraction.close();
});

afterEach(async () => {
  await standIn?.close();
  await fetcher?.close();
  standIn = undefined;
  fetcher = undefined;
});

async function setUp(overrides: Partial<ZendeskStandInOptions> = {}, apiToken = TOKEN): Promise<{ reader: ZendeskReader; zendesk: ZendeskStandIn }> {
  const zendesk = await startZendeskStandIn({ ...OPTIONS, ...overrides });
  standIn = zendesk;
  fetcher = new HttpFetcher({ allowPrivateNetwork: true });
  return { reader: new ZendeskReader(fetcher, extraction, { baseUrl: zendesk.baseUrl, email: EMAIL, apiToken }), zendesk };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

const EXPECTED_TICKET = [
  '# Ticket #35436: Export to CSV times out',
  '',
  'Status: open · Priority: high · Type: problem · Requester: Jane Customer · Assignee: Alex Agent · Created: 2024-05-01 · Updated: 2024-05-03 · Tags: export, enterprise',
  '',
  '## Comments',
  '',
  '### Public reply — Jane Customer — 2024-05-01 08:00 UTC',
  '',
  'Exporting 50k rows fails after 30 seconds.',
  '',
  '### Internal note — Alex Agent — 2024-05-01 09:00 UTC',
  '',
  'Looks like the **report worker** limit.',
  '',
  '```',
  'worker.timeout = 30s',
  '```',
  '',
  '### Public reply — Alex Agent — 2024-05-02 10:00 UTC',
  '',
  'We raised the limit; please try again.',
  '',
  '### Public reply — user 777 — 2024-05-03 09:30 UTC',
  '',
  'Works now, thanks!',
  '',
].join('\n');

describe('ZendeskReader', () => {
  it('reads a ticket with its metadata and every comment, following cursor pages', async () => {
    const { reader, zendesk } = await setUp();
    const document = await reader.read(`${zendesk.baseUrl}/agent/tickets/35436`);

    expect(document.title).toBe('Ticket #35436: Export to CSV times out');
    expect(document.url).toBe(`${zendesk.baseUrl}/agent/tickets/35436`);
    expect(document.markdown).toBe(EXPECTED_TICKET);

    const paths = zendesk.server.requests.map((request) => decodeURIComponent(request.path));
    expect(paths[0]).toBe('/api/v2/tickets/35436.json?include=users');
    expect(paths[1]).toBe('/api/v2/tickets/35436/comments.json?include=users&page[size]=100');
    expect(paths[2]).toMatch(/^\/api\/v2\/tickets\/35436\/comments\.json\?include=users&page\[after\]=\w+&page\[size\]=2$/);
    expect(paths).toHaveLength(3);
    const expected = `Basic ${Buffer.from(`${EMAIL}/token:${TOKEN}`).toString('base64')}`;
    for (const request of zendesk.server.requests) expect(request.headers.authorization).toBe(expected);
  });

  it('follows offset next_page links just as well', async () => {
    const { reader, zendesk } = await setUp({ pagination: 'offset' });
    const document = await reader.read(`${zendesk.baseUrl}/tickets/35436`);
    expect(document.markdown).toBe(EXPECTED_TICKET);
    expect(zendesk.server.requests.map((request) => request.path).at(-1)).toBe('/api/v2/tickets/35436/comments.json?include=users&page=2&per_page=2');
  });

  it('accepts the agent, short and Help Center request forms of a ticket URL', async () => {
    const { reader, zendesk } = await setUp();
    for (const form of ['/agent/tickets/35436', '/agent/tickets/35436/', '/tickets/35436', '/hc/en-us/requests/35436']) {
      const document = await reader.read(`${zendesk.baseUrl}${form}`);
      expect(document.url).toBe(`${zendesk.baseUrl}/agent/tickets/35436`);
    }
  });

  it('reads a Help Center article, its HTML body as Markdown', async () => {
    const { reader, zendesk } = await setUp();
    const document = await reader.read(`${zendesk.baseUrl}/hc/en-us/articles/360012345-How-to-export-reports`);
    expect(document.title).toBe('How to export reports');
    expect(document.url).toBe(`${zendesk.baseUrl}/hc/en-us/articles/360012345`);
    expect(document.markdown).toBe(
      '# How to export reports\n\nOpen **Reports** and choose _Export_.\n\n## Large exports\n\n-   Use CSV\n-   Split by month\n\n```bash\ncurl -O https://example.com/export.csv\n```\n',
    );
    expect(zendesk.server.requests.map((request) => request.path)).toEqual(['/api/v2/help_center/en-us/articles/360012345.json']);
  });

  it('refuses URLs of another account, naming both, and URLs that are neither ticket nor article', async () => {
    const { reader, zendesk } = await setUp();
    const foreign = await rejection(reader.read('https://other.zendesk.com/agent/tickets/35436'));
    expect(foreign).toBeInstanceOf(SourceError);
    expect((foreign as Error).message).toContain('https://other.zendesk.com/agent/tickets/35436');
    expect((foreign as Error).message).toContain(zendesk.baseUrl);
    for (const bad of ['::', `${zendesk.baseUrl}/agent/tickets/abc`, `${zendesk.baseUrl}/agent/dashboard`, `${zendesk.baseUrl}/hc/en-us/sections/42-Guides`]) {
      await expect(reader.read(bad)).rejects.toBeInstanceOf(SourceError);
    }
    expect(zendesk.server.requests).toHaveLength(0);
  });

  it('explains 401 and 404, and leaves 429 and 503 retryable', async () => {
    const { reader, zendesk } = await setUp({}, 'wrong');
    const refused = await rejection(reader.read(`${zendesk.baseUrl}/agent/tickets/35436`));
    expect(refused).toBeInstanceOf(SourceError);
    expect((refused as Error).message).toMatch(/^Zendesk answered 401: .* refused the integration's credentials/);

    const good = new ZendeskReader(fetcher!, extraction, { baseUrl: zendesk.baseUrl, email: EMAIL, apiToken: TOKEN });
    const missing = await rejection(good.read(`${zendesk.baseUrl}/agent/tickets/1`));
    expect((missing as Error).message).toBe("Zendesk answered 404: ticket 1 does not exist or the integration's account cannot see it");
    const noArticle = await rejection(good.read(`${zendesk.baseUrl}/hc/de/articles/9-x`));
    expect((noArticle as Error).message).toBe("Zendesk answered 404: Help Center article 9 (de) does not exist or the integration's account cannot see it");

    zendesk.server.failNext('/api/v2/tickets/35436/comments.json', { status: 429, headers: { 'retry-after': '12' }, body: { error: 'TooManyRequests' } });
    const limited = await rejection(good.read(`${zendesk.baseUrl}/agent/tickets/35436`));
    expect(limited).toBeInstanceOf(FetchFailure);
    expect(limited).toMatchObject({ status: 429, retryable: true, retryAfterMs: 12_000 });

    zendesk.server.failNext('/api/v2/help_center', { status: 503, body: 'Service Unavailable' });
    const unavailable = await rejection(good.read(`${zendesk.baseUrl}/hc/en-us/articles/360012345`));
    expect(unavailable).toMatchObject({ kind: 'http_status', status: 503, retryable: true });
  });

  it('does not send the credentials to a next page on another host', async () => {
    const { reader, zendesk } = await setUp();
    zendesk.server.failNext('/api/v2/tickets/35436/comments.json', {
      status: 200,
      body: { comments: [], meta: { has_more: true }, links: { next: 'https://evil.example.com/api/v2/tickets/35436/comments.json?page[after]=x' } },
    });
    const error = await rejection(reader.read(`${zendesk.baseUrl}/agent/tickets/35436`));
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toContain('outside the integration');
    expect(zendesk.server.requests).toHaveLength(2);
  });
});
