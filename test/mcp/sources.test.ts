/**
 * add_sources with URL sources and reindex_sources, over a real engine reading
 * real loopback servers: a website, the YouTube stand-in and the Jira stand-in.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CreatedDataSource, DataSource, SemanticSearchResponse } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { startJiraStandIn, type JiraStandIn } from '../stand-ins/jira.js';
import { startYouTubeStandIn, type YouTubeStandIn } from '../stand-ins/youtube.js';
import { respond, startLoopbackServer, type LoopbackServer, type Route } from '../support/loopback-server.js';
import { DOCS_PAGE } from '../support/pages.js';
import { ERAS, collectProgress, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';

const Processing = z.object({
  counts: z.object({ SUCCESS: z.number(), FAIL: z.number(), NOT_PROCESSED: z.number() }),
  failures: z.array(z.object({ id: z.number(), url: z.string(), error: z.string() })),
  finished: z.array(DataSource),
  pending: z.array(z.number()),
  truncated: z.boolean(),
});
const Added = z.object({
  results: z.array(CreatedDataSource),
  counts: z.record(z.string(), z.number()),
  truncated: z.boolean(),
  processing: Processing.optional(),
});
const Reindexed = z.object({ msg: z.string(), processing: Processing.optional() });
const Listing = z.object({ count: z.number(), results: z.array(DataSource) });

const changelog = (version: string) => `<!DOCTYPE html><html><head><title>Changelog</title></head>
<body><main><h1>Changelog</h1><p>Release ${version} brings the quibble scheduler.</p></main></body></html>`;

describe.each(ERAS)('MCP URL sources (%s)', (era) => {
  let site: LoopbackServer;
  let youtube: YouTubeStandIn;
  let jira: JiraStandIn;
  let test: TestBackend;
  let client: Client;
  let changelogVersion: string;
  /** Titles of the pages under /many/, by path. */
  let manyPages: Map<string, string>;

  beforeEach(async () => {
    changelogVersion = 'zanzibar';
    manyPages = new Map();
    const manyPage: Route = (request, response) => {
      const title = manyPages.get(request.url ?? '');
      respond(`<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>One of many pages.</p></main></body></html>`)(request, response);
    };
    site = await startLoopbackServer({
      ...Object.fromEntries(Array.from({ length: 280 }, (_, index) => [`/many/page-${index}`, manyPage])),
      '/docs/pooling': respond(DOCS_PAGE),
      '/changelog': (request, response) => respond(changelog(changelogVersion))(request, response),
    });
    youtube = await startYouTubeStandIn([
      { id: 'dQw4w9WgXcQ', title: 'Calibrating the zorbix coil', captions: [{ start: 0, duration: 5, text: 'Turn the zorbix coil a quarter turn.' }] },
      { id: 'aaaaaaaaaaa', title: 'Silent film', captions: null },
    ]);
    jira = await startJiraStandIn({
      email: 'bot@frob.test',
      apiToken: 'jira-token',
      issues: [{ key: 'FROB-7', summary: 'Frobnicator crashes on wibble 9', description: 'Set *wibble* to 9 and run.', comments: [] }],
    });
    test = await openTestBackend({ allowPrivateNetwork: true, youtubeUrl: youtube.baseUrl });
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
    await Promise.all([site.close(), youtube.close(), jira.close()]);
  });

  async function call(name: string, args: Record<string, unknown>, progressToken?: number): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args, ...(progressToken === undefined ? {} : { _meta: { progressToken } }) })) as CallToolResult;
  }

  async function callOk<T>(name: string, args: Record<string, unknown>, schema: z.ZodType<T>, progressToken?: number) {
    const result = await call(name, args, progressToken);
    expect(result.isError, textOf(result)).toBeFalsy();
    return { data: schema.parse(result.structuredContent), text: textOf(result) };
  }

  it('adds web pages and videos in one call and waits for them with progress', async () => {
    const progress = collectProgress(client);
    const { data, text } = await callOk(
      'add_sources',
      {
        website_urls: [site.url('/docs/pooling')],
        youtube_urls: ['https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube.com/watch?v=aaaaaaaaaaa'],
        labels: ['media'],
        wait: true,
      },
      Added,
      3,
    );
    const byUrl = new Map(data.results.map((item) => [item.url, item]));
    expect(byUrl.get(site.url('/docs/pooling'))).toMatchObject({ type: 'Website', status: 'success' });
    expect(byUrl.get('https://www.youtube.com/watch?v=dQw4w9WgXcQ')).toMatchObject({ type: 'YouTube', status: 'success' });
    expect(data.results).toHaveLength(3);

    const finished = new Map(data.processing!.finished.map((source) => [source.url, source]));
    expect(data.processing!.pending).toEqual([]);
    expect(finished.get(site.url('/docs/pooling'))).toMatchObject({ type: 'WEBSITE', status: 'SUCCESS', title: 'Connection pooling' });
    expect(finished.get('https://www.youtube.com/watch?v=dQw4w9WgXcQ')).toMatchObject({ type: 'YOUTUBE', status: 'SUCCESS', title: 'Calibrating the zorbix coil' });
    expect(finished.get('https://www.youtube.com/watch?v=aaaaaaaaaaa')).toMatchObject({ status: 'FAIL', error: expect.stringContaining('no transcript') });
    expect(text).toMatch(/#\d+ YouTube "https:\/\/www\.youtube\.com\/watch\?v=dQw4w9WgXcQ": success/);
    expect(text).toMatch(/watch\?v=aaaaaaaaaaa": FAIL \(This video has no transcript/);
    expect(progress.at(-1)).toMatchObject({ progressToken: 3, progress: 3, total: 3, message: '3 of 3 source(s) processed' });

    const search = await callOk('semantic_search', { question: 'zorbix coil', labels: ['media'] }, SemanticSearchResponse);
    expect(search.data.sources.map((source) => source.link)).toEqual(['https://www.youtube.com/watch?v=dQw4w9WgXcQ']);

    // The same page again, in another spelling, is the source already there.
    const again = await callOk('add_sources', { website_urls: [`${site.url('/docs/pooling')}#settings`] }, Added);
    expect(again.data.results).toEqual([
      expect.objectContaining({ type: 'Website', status: 'exists', id: byUrl.get(site.url('/docs/pooling'))!.id, title: 'Connection pooling' }),
    ]);
    expect(again.text).toContain(': exists');
  });

  it('sums up hundreds of web pages: counts by status and the failures with their reasons, the first 50 listed', async () => {
    const pages = Array.from({ length: 280 }, (_, index) => site.url(`/many/page-${index}`));
    const missing = Array.from({ length: 20 }, (_, index) => site.url(`/missing/page-${index}`));
    const urls = [...pages, ...missing];
    for (const [index, url] of pages.entries()) manyPages.set(new URL(url).pathname, `Many page ${index}`);

    const result = await call('add_sources', { website_urls: urls, wait: true });
    expect(result.isError, textOf(result)).toBeFalsy();
    const data = Added.parse(result.structuredContent);
    expect(data.counts).toEqual({ success: 300 });
    expect(data.truncated).toBe(true);
    expect(data.results.map((item) => item.url)).toEqual(urls.slice(0, 50));
    const processing = data.processing!;
    expect(processing.counts).toEqual({ SUCCESS: 280, FAIL: 20, NOT_PROCESSED: 0 });
    expect(processing.truncated).toBe(true);
    expect(processing.finished.map((source) => source.url)).toEqual(urls.slice(0, 50));
    expect(processing.pending).toEqual([]);
    expect(processing.failures.map((source) => source.url)).toEqual(missing);
    expect(processing.failures.every((source) => /404/.test(source.error))).toBe(true);
    // Some 116 KB when every source was listed twice.
    expect(JSON.stringify(data).length).toBeLessThan(30_000);

    const text = textOf(result);
    expect(text.split('\n').length).toBeLessThan(30);
    expect(text).toMatch(/^300 source\(s\) submitted to guru "frob": 300 success \(new sources\)\.\n/);
    expect(text).toContain('Processing results: 280 SUCCESS, 20 FAIL, 0 still processing.\nFailed:\n');
    for (const url of missing) expect(text).toMatch(new RegExp(`- #\\d+ "${url}": .*404`));
    expect(text).toContain('list_sources pages through every source');

    // The same pages again, without waiting: all there already.
    const again = await callOk('add_sources', { website_urls: urls }, Added);
    expect(again.data).toMatchObject({ counts: { exists: 300 }, truncated: true });
    expect(again.data.results).toHaveLength(50);
    expect(again.text).toMatch(/^300 source\(s\) submitted to guru "frob": 300 exists \(already sources\)\.\nProcessing runs in the background/);

    // Few sources are still listed one by one.
    const few = await callOk('add_sources', { website_urls: pages.slice(0, 2) }, Added);
    expect(few.data).toMatchObject({ counts: { exists: 2 }, truncated: false });
    expect(few.text).toMatch(/^2 source\(s\) submitted to guru "frob":\n- #\d+ Website "Many page 0": exists\n- #\d+ Website "Many page 1": exists\n/);
  });

  it('refuses Jira issues until the guru has the integration, naming it and how to set it', async () => {
    const url = `${jira.baseUrl}/browse/FROB-7`;
    const refused = await call('add_sources', { jira_urls: [url] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Jira integration is not set up for this guru\nSet it with `guru-mcp integration set frob jira --url <site>/);
    expect(await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 10 })).toMatchObject({ count: 0 });

    await test.backend.admin!.setIntegration('frob', { kind: 'jira', base_url: jira.baseUrl, email: 'bot@frob.test', token: 'jira-token' });
    const { data } = await callOk('add_sources', { jira_urls: [url], wait: true }, Added);
    expect(data.results).toEqual([expect.objectContaining({ type: 'Jira', status: 'success' })]);
    expect(data.processing!.finished).toEqual([expect.objectContaining({ type: 'JIRA', status: 'SUCCESS', title: expect.stringContaining('FROB-7') })]);
  });

  it('reindexes sources by id: fetched again, counted, and waited for with progress', async () => {
    const added = await callOk('add_sources', { website_urls: [site.url('/changelog')], wait: true }, Added);
    const id = added.data.results[0]!.id;
    expect(added.data.processing!.finished[0]).toMatchObject({ status: 'SUCCESS', reindex_count: 0 });

    changelogVersion = 'xylophone';
    const progress = collectProgress(client);
    const { data, text } = await callOk('reindex_sources', { ids: [id], wait: true }, Reindexed, 9);
    expect(data.msg).toBe('Reindexing 1 data source');
    expect(data.processing).toEqual({
      counts: { SUCCESS: 1, FAIL: 0, NOT_PROCESSED: 0 },
      failures: [],
      finished: [expect.objectContaining({ id, status: 'SUCCESS', reindex_count: 1 })],
      pending: [],
      truncated: false,
    });
    expect(data.processing!.finished[0]!.last_reindex_date).toBeTruthy();
    expect(text).toMatch(/^Reindexing 1 data source\.\nProcessing results:\n- #\d+ "Changelog": SUCCESS$/);
    expect(progress.at(-1)).toMatchObject({ progressToken: 9, progress: 1, total: 1 });
    expect(site.requests.filter((request) => request.path === '/changelog')).toHaveLength(2);

    const search = await callOk('semantic_search', { question: 'xylophone' }, SemanticSearchResponse);
    expect(search.data.sources.map((source) => source.title)).toEqual(['Changelog']);

    const quick = await callOk('reindex_sources', { ids: [id] }, Reindexed);
    expect(quick.data).toEqual({ msg: 'Reindexing 1 data source' });
    expect(quick.text).toContain('call list_sources');
  });

  it('refuses ids that are not sources of the guru', async () => {
    const added = await callOk('add_sources', { text_sources: [{ name: 'Note', content: 'A note.' }] }, Added);
    const refused = await call('reindex_sources', { ids: [added.data.results[0]!.id, 4242] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Invalid request parameters\nno data source with id 4242 in this guru');
    expect((await call('reindex_sources', { ids: [] })).isError).toBe(true);
    expect(textOf(await call('reindex_sources', { ids: [0] }))).toMatch(/Input validation error/);

    const listing = Listing.parse((await call('list_sources', {})).structuredContent);
    expect(listing.results[0]).toMatchObject({ reindex_count: 0 });
  });

  it('deletes sources by id, passing over ids that are not its sources', async () => {
    const added = await callOk('add_sources', { text_sources: [{ name: 'Note', content: 'The zorblax hums.' }, { name: 'Other', content: 'Plain.' }], wait: true }, Added);
    const [note, other] = added.data.results.map((item) => item.id);
    const result = await call('delete_sources', { ids: [note, 4242] });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ msg: 'Data sources deleted successfully' });
    expect(textOf(result)).toContain(`ids ${note}, 4242`);
    const listing = Listing.parse((await call('list_sources', {})).structuredContent);
    expect(listing.results.map((source) => source.id)).toEqual([other]);
    const search = await callOk('semantic_search', { question: 'zorblax' }, SemanticSearchResponse);
    expect(search.data.total_sources).toBe(0);
    expect(textOf(await call('delete_sources', { ids: [] }))).toMatch(/Input validation error/);
    expect(textOf(await call('delete_sources', { ids: Array.from({ length: 10_001 }, (_, i) => i + 1) }))).toMatch(/Input validation error/);
  });
});
