/**
 * start_crawl, crawl_status and stop_crawl over a real engine crawling loopback
 * sites: waiting with progress, adding the pages, long lists in parts, the
 * guru's limit, cancellation, and the spec's errors.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CreatedDataSource, Crawl } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { respond, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { ERAS, collectProgress, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';

const CrawlPart = Crawl.extend({ total_discovered: z.number(), truncated: z.boolean(), next_offset: z.number().nullable() });
const Added = z.object({
  guru_slug: z.string(),
  submitted: z.number(),
  added: z.number(),
  existing: z.number(),
  refused: z.number(),
  refusal: z.string().nullable(),
  results: z.array(CreatedDataSource),
  truncated: z.boolean(),
});
const StartedCrawl = CrawlPart.extend({ added: Added.optional() });

const page = (title: string, links: readonly string[] = []) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>About ${title}.</p>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</main></body></html>`;

const BIG_PAGES = 520;

describe.each(ERAS)('MCP crawl tools (%s)', (era) => {
  let site: LoopbackServer;
  /** Answers 404 to everything: the pages a full guru was filled with. */
  let gone: LoopbackServer;
  /** Responses of /held/ kept open, so that a crawl of it stays RUNNING. */
  const held: ServerResponse[] = [];
  let test: TestBackend;
  let client: Client;

  beforeAll(async () => {
    const big = Array.from({ length: BIG_PAGES }, (_, index) => `p${index + 1}`);
    site = await startLoopbackServer({
      '/docs/': respond(page('Docs', ['install', 'guide/', 'list?page=1', '/blog/news', 'logo.png'])),
      '/docs/install': respond(page('Install', ['/docs/'])),
      '/docs/guide/': respond(page('Guide', ['../install'])),
      '/docs/list': respond(page('List', ['/docs/list?page=2'])),
      '/blog/news': respond(page('News')),
      '/big/': respond(page('Big', big)),
      ...Object.fromEntries(big.map((name) => [`/big/${name}`, respond(page(name))])),
      '/held/': (_request, response) => {
        held.push(response);
      },
    });
    gone = await startLoopbackServer({});
  });

  afterAll(async () => {
    await site.close();
    await gone.close();
  });

  beforeEach(async () => {
    test = await openTestBackend({ allowPrivateNetwork: true });
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    for (const response of held.splice(0)) response.destroy();
    await client.close();
    await test.close();
  });

  async function call(name: string, args: Record<string, unknown>, options: { progressToken?: number; signal?: AbortSignal } = {}) {
    return (await client.callTool(
      { name, arguments: args, ...(options.progressToken === undefined ? {} : { _meta: { progressToken: options.progressToken } }) },
      options.signal === undefined ? {} : { signal: options.signal },
    )) as CallToolResult;
  }

  async function callOk<T>(name: string, args: Record<string, unknown>, schema: z.ZodType<T>, progressToken?: number) {
    const result = await call(name, args, progressToken === undefined ? {} : { progressToken });
    expect(result.isError, textOf(result)).toBeFalsy();
    return { data: schema.parse(result.structuredContent), text: textOf(result) };
  }

  async function callError(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    return textOf(result);
  }

  const paths = (urls: readonly string[]) => urls.map((url) => url.slice(site.origin.length)).sort();

  it('starts a crawl and answers it RUNNING at once; crawl_status follows it to COMPLETED', async () => {
    const started = await callOk('start_crawl', { url: site.url('/docs/') }, CrawlPart);
    expect(started.data).toMatchObject({
      url: site.url('/docs/'),
      status: 'RUNNING',
      guru_type: 'frob',
      discovered_urls: [],
      end_time: null,
      link_limit: 1500,
      ignore_query_params: true,
      total_discovered: 0,
      truncated: false,
      next_offset: null,
    });
    expect(started.text).toContain(`Crawl ${started.data.id} of ${site.url('/docs/')} (query strings ignored): RUNNING, 0 URL(s) discovered.`);
    expect(started.text).toContain(`call crawl_status with crawl_id=${started.data.id}`);

    let status = await callOk('crawl_status', { crawl_id: started.data.id }, CrawlPart);
    while (status.data.status === 'RUNNING') {
      // The in-memory transport answers within microtasks; pausing lets the crawl's requests through.
      await sleep(25);
      status = await callOk('crawl_status', { crawl_id: started.data.id }, CrawlPart);
    }
    expect(status.data).toMatchObject({ id: started.data.id, status: 'COMPLETED', total_discovered: 4, truncated: false, next_offset: null });
    expect(paths(status.data.discovered_urls)).toEqual(['/docs/', '/docs/guide/', '/docs/install', '/docs/list']);
    expect(status.text).toContain('COMPLETED, 4 URL(s) discovered.');
    expect(status.text).toContain(`- ${site.url('/docs/install')}`);
    expect(status.text).toContain('add them with add_sources (website_urls)');
  });

  it('waits for the crawl with wait: true, reporting the URLs discovered as progress', async () => {
    const progress = collectProgress(client);
    const { data, text } = await callOk('start_crawl', { url: site.url('/docs/'), ignore_query_params: false, wait: true }, CrawlPart, 7);
    expect(data).toMatchObject({ status: 'COMPLETED', ignore_query_params: false, total_discovered: 5, end_time: expect.any(String) });
    expect(paths(data.discovered_urls)).toEqual(['/docs/', '/docs/guide/', '/docs/install', '/docs/list?page=1', '/docs/list?page=2']);
    expect(text).toContain('(query strings kept): COMPLETED, 5 URL(s) discovered.');

    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((item) => item.progressToken === 7 && item.total === undefined)).toBe(true);
    expect(progress.map((item) => item.progress)).toEqual([...progress.map((item) => item.progress)].sort((a, b) => a - b));
    expect(progress.at(-1)).toMatchObject({ progress: 5, message: '5 URL(s) discovered' });
  });

  it('adds the discovered pages as web page sources with add: true, and finds them there the second time', async () => {
    const { data, text } = await callOk('start_crawl', { url: site.url('/docs/'), add: true }, StartedCrawl);
    expect(data.status).toBe('COMPLETED');
    expect(data.added).toMatchObject({ guru_slug: 'frob', submitted: 4, added: 4, existing: 0, refused: 0, refusal: null });
    // Sources keep URLs in canonical form, without a trailing slash.
    const canonical = (urls: readonly (string | undefined)[]) => urls.map((url) => url!.replace(/\/$/, '')).sort();
    expect(canonical(data.added!.results.map((item) => item.url))).toEqual(canonical(data.discovered_urls));
    expect(data.added!.results.every((item) => item.type === 'Website' && item.status === 'success')).toBe(true);
    expect(text).toContain('Submitted 4 web pages to guru "frob": 4 added as new sources, 0 already there, 0 not added.');
    expect(text).toContain('list_sources shows when each reaches SUCCESS or FAIL');
    expect(text).not.toContain('not in the knowledge base yet');

    const listing = await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 10 });
    expect(canonical(listing.results.map((source) => source.url))).toEqual(canonical(data.discovered_urls));

    const again = await callOk('start_crawl', { url: site.url('/docs/'), add: true }, StartedCrawl);
    expect(again.data.added).toMatchObject({ submitted: 4, added: 0, existing: 4, refused: 0 });
  });

  it("adds only what fits under the guru's limit of web pages, saying why the rest was not added", async () => {
    const filler = Array.from({ length: 1498 }, (_, index) => gone.url(`/filler/${index}`));
    await test.backend.assistant.createDataSources('frob', { website_urls: filler });

    const { data, text } = await callOk('start_crawl', { url: site.url('/docs/'), add: true }, StartedCrawl);
    expect(data.added).toMatchObject({ submitted: 4, added: 2, existing: 0, refused: 2 });
    expect(data.added!.refusal).toBe(
      'Invalid request parameters: website_urls: the guru holds 1498 Website sources and may hold at most 1500; 4 more would exceed that.',
    );
    expect(text).toContain('2 added as new sources, 0 already there, 2 not added.');
    expect(text).toContain('Not added because the service refused them: Invalid request parameters: website_urls: the guru holds 1498');
    expect((await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 1 })).count).toBe(1500);
  });

  it('sums up adding hundreds of pages: the first 50 URLs and sources listed, counts, and where the rest are', async () => {
    const { data, text } = await callOk('start_crawl', { url: site.url('/big/'), add: true }, StartedCrawl);
    const total = BIG_PAGES + 1;
    expect(data).toMatchObject({ status: 'COMPLETED', total_discovered: total, truncated: true, next_offset: 50 });
    expect(data.discovered_urls).toHaveLength(50);
    expect(data.added).toMatchObject({ submitted: total, added: total, existing: 0, refused: 0, refusal: null, truncated: true });
    expect(data.added!.results.map((item) => item.url?.replace(/\/$/, ''))).toEqual(data.discovered_urls.map((url) => url.replace(/\/$/, '')));
    // Some 100 KB when 500 URLs and 500 sources were listed.
    expect(JSON.stringify(data).length).toBeLessThan(15_000);
    expect(text).toContain(`Discovered URLs 1–50 of ${total}:`);
    expect(text).toContain(`…and ${total - 50} more: crawl_status with offset=50 returns the ones after`);
    expect(text).toContain(`Submitted ${total} web pages to guru "frob": ${total} added as new sources, 0 already there, 0 not added.`);
    expect(text.split('\n').length).toBeLessThan(60);

    const rest = await callOk('crawl_status', { crawl_id: data.id, offset: 50 }, CrawlPart);
    expect(rest.data).toMatchObject({ truncated: true, next_offset: null });
    expect(rest.data.discovered_urls).toHaveLength(total - 50);
    expect((await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 1 })).count).toBe(total);
  });

  it(`lists a long crawl in parts of 500: crawl_status takes an offset`, async () => {
    const { data, text } = await callOk('start_crawl', { url: site.url('/big/'), wait: true }, CrawlPart);
    const total = BIG_PAGES + 1;
    expect(data).toMatchObject({ status: 'COMPLETED', total_discovered: total, truncated: true, next_offset: 500 });
    expect(data.discovered_urls).toHaveLength(500);
    expect(text).toContain(`Discovered URLs 1–500 of ${total}:`);
    expect(text).toContain(`…and ${total - 50} more: the structured content lists 450 of them; crawl_status with offset=500 returns the ones after`);
    expect(text.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(50);

    const rest = await callOk('crawl_status', { crawl_id: data.id, offset: 500 }, CrawlPart);
    expect(rest.data).toMatchObject({ total_discovered: total, truncated: true, next_offset: null });
    expect(rest.data.discovered_urls).toHaveLength(total - 500);
    expect(new Set([...data.discovered_urls, ...rest.data.discovered_urls]).size).toBe(total);
    expect(rest.text).toContain(`Discovered URLs 501–${total} of ${total}:`);

    const past = await callOk('crawl_status', { crawl_id: data.id, offset: 5000 }, CrawlPart);
    expect(past.data).toMatchObject({ discovered_urls: [], truncated: true, next_offset: null });
    expect(past.text).toContain(`offset=5000 is past the end of the ${total} URL(s).`);
  });

  it('stops a running crawl, keeps it stopped when asked again, and then lets a new one start', async () => {
    const started = await callOk('start_crawl', { url: site.url('/held/') }, CrawlPart);
    expect(await callError('start_crawl', { url: site.url('/docs/') })).toBe(
      'A crawl is already running for this guru. Please wait for it to complete or stop it.',
    );
    const stopped = await callOk('stop_crawl', { crawl_id: started.data.id }, CrawlPart);
    expect(stopped.data).toMatchObject({ id: started.data.id, status: 'STOPPED', end_time: expect.any(String) });
    expect(stopped.text).toContain(`Crawl ${started.data.id} of ${site.url('/held/')} (query strings ignored): STOPPED`);
    const again = await callOk('stop_crawl', { crawl_id: started.data.id }, CrawlPart);
    expect(again.data).toEqual(stopped.data);
    const next = await callOk('start_crawl', { url: site.url('/docs/install'), wait: true }, CrawlPart);
    expect(next.data.status).toBe('COMPLETED');
  });

  it('leaves the crawl running in the background when a waiting call is cancelled', async () => {
    const progress = collectProgress(client);
    const controller = new AbortController();
    const waiting = call('start_crawl', { url: site.url('/held/'), wait: true }, { progressToken: 9, signal: controller.signal });
    while (progress.length === 0) await sleep(20);
    controller.abort();
    await expect(waiting).rejects.toThrow();
    expect(await callError('start_crawl', { url: site.url('/docs/') })).toContain('A crawl is already running for this guru');
  });

  it("answers the spec's errors with a hint", async () => {
    expect(await callError('start_crawl', { url: 'ftp://example.com/docs/' })).toBe(
      'Invalid URL format\nPass an absolute http:// or https:// URL, e.g. https://docs.example.com/guide/',
    );
    expect(await callError('crawl_status', { crawl_id: 424242 })).toBe('Crawl not found');
    expect(await callError('stop_crawl', { crawl_id: 424242 })).toBe('Crawl not found');
    expect(await callError('crawl_status', { crawl_id: 1, guru_slug: 'nope' })).toMatch(/^Guru type nope not found\n/);
  });

  it('offers the three tools with honest annotations', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('start_crawl')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(byName.get('crawl_status')!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('stop_crawl')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(Object.keys(byName.get('start_crawl')!.inputSchema.properties ?? {}).sort()).toEqual(['add', 'guru_slug', 'ignore_query_params', 'url', 'wait']);
    expect(byName.get('start_crawl')!.description).toContain('crawl_status');
  });
});
