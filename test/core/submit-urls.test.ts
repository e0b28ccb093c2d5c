/**
 * submitUrls over a real engine: batches, the guru's limit of videos filled up to
 * the last one that fits, and failures that are not refusals. Sources point at
 * a YouTube stand-in without videos, so their processing ends quickly in FAIL.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataSources } from '../../src/core/assistant.js';
import type { CreateDataSourcesRequest } from '../../src/core/schemas.js';
import { submitUrls } from '../../src/core/submit-urls.js';
import { openTestBackend } from '../mcp/support.js';
import type { TestBackend } from '../mcp/support.js';
import { startYouTubeStandIn, type YouTubeStandIn } from '../stand-ins/youtube.js';

const videoUrl = (n: number) => `https://www.youtube.com/watch?v=v${String(n).padStart(10, '0')}`;
const videoUrls = (from: number, count: number) => Array.from({ length: count }, (_, index) => videoUrl(from + index));

describe('submitUrls', () => {
  let youtube: YouTubeStandIn;
  let test: TestBackend;
  /** The engine, with the size of every create request it was sent. */
  let sources: DataSources;
  let requests: number[];

  beforeEach(async () => {
    youtube = await startYouTubeStandIn([]);
    test = await openTestBackend({ allowPrivateNetwork: true, youtubeUrl: youtube.baseUrl });
    await test.backend.admin!.createGuru({ slug: 'frob' });
    requests = [];
    const engine = test.backend.assistant;
    sources = {
      createDataSources: (guru: string, request: CreateDataSourcesRequest) => {
        requests.push((request.youtube_urls ?? request.website_urls ?? []).length);
        return engine.createDataSources(guru, request);
      },
      listDataSources: (guru, query) => engine.listDataSources(guru, query),
      reindexDataSources: (guru, request) => engine.reindexDataSources(guru, request),
      deleteDataSources: (guru, request) => engine.deleteDataSources(guru, request),
    };
  });

  afterEach(async () => {
    await test.close();
    await youtube.close();
  });

  it('submits in batches and answers one result per URL, in order', async () => {
    const urls = videoUrls(1, 25);
    const submission = await submitUrls(sources, 'frob', 'youtube_urls', urls, { batchSize: 10, labels: ['talks'] });
    expect(requests).toEqual([10, 10, 5]);
    expect(submission.refusal).toBeUndefined();
    expect(submission.results.map((item) => [item.url, item.status, item.type])).toEqual(urls.map((url) => [url, 'success', 'YouTube']));
    const listing = await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 100 });
    expect(listing.count).toBe(25);
    expect(listing.results[0]!.url).toBe(urls.at(-1));
  });

  it("adds what fits under the guru's limit, in order, and names the rest with the service's reason", async () => {
    await test.backend.assistant.createDataSources('frob', { youtube_urls: videoUrls(1, 95) });
    // Two already there, then twelve new ones: five fit.
    const urls = [videoUrl(1), videoUrl(2), ...videoUrls(200, 12)];
    const submission = await submitUrls(sources, 'frob', 'youtube_urls', urls, { batchSize: 100 });

    expect(submission.results.map((item) => item.status)).toEqual(['exists', 'exists', 'success', 'success', 'success', 'success', 'success']);
    expect(submission.results.map((item) => item.url)).toEqual(urls.slice(0, 7));
    expect(submission.refusal).toEqual({
      urls: urls.slice(7),
      message: 'Invalid request parameters',
      hint: 'youtube_urls: the guru holds 95 YouTube sources and may hold at most 100; 12 more would exceed that.',
    });
    // The refused batch was split until the URLs that fit were in; nothing after the first misfit was tried.
    expect(requests[0]).toBe(14);
    expect(requests.length).toBeLessThan(10);
    expect((await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 1 })).count).toBe(100);
  });

  it('stops at a later batch that does not fit, keeping the results of the earlier ones', async () => {
    await test.backend.assistant.createDataSources('frob', { youtube_urls: videoUrls(1, 80) });
    const urls = videoUrls(500, 30);
    const submission = await submitUrls(sources, 'frob', 'youtube_urls', urls, { batchSize: 15 });
    expect(submission.results).toHaveLength(20);
    expect(submission.results.every((item) => item.status === 'success')).toBe(true);
    expect(submission.refusal?.urls).toEqual(urls.slice(20));
    expect(submission.refusal?.hint).toContain('may hold at most 100; 15 more would exceed that');
  });

  it('ends at a failure that is no refusal, adding nothing, with its message', async () => {
    const urls = videoUrls(1, 3);
    const submission = await submitUrls(sources, 'nope', 'youtube_urls', urls);
    expect(requests).toEqual([3]);
    expect(submission).toEqual({ results: [], refusal: { urls, message: 'Guru type nope not found', hint: expect.stringContaining('list_gurus') } });
  });

  it('submits nothing for an empty list', async () => {
    expect(await submitUrls(sources, 'frob', 'website_urls', [])).toEqual({ results: [], refusal: undefined });
    expect(requests).toEqual([]);
  });
});
