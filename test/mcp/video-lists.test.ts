/**
 * import_channel and import_playlist over a real engine reading the YouTube Data
 * API stand-in: the spec's shapes, long lists cut for context, adding the videos
 * up to the guru's limit, and the errors of a missing key and a wrong URL.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChannelImport, CreatedDataSource, PlaylistImport } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { startYouTubeDataApiStandIn, type YouTubeDataApiStandIn } from '../stand-ins/youtube-data-api.js';
import { startYouTubeStandIn, type YouTubeStandIn } from '../stand-ins/youtube.js';
import { ERAS, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';

const CHANNEL_ID = 'UCmcpdemo000000000000001';
const SHORT_PLAYLIST = 'PLmcpshort00000000000000000000001';
const LONG_PLAYLIST = 'PLmcplong000000000000000000000001';
const MID_PLAYLIST = 'PLmcpmid0000000000000000000000001';

/** 11-character video ids. */
const videoIds = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(11 - prefix.length, '0')}`);
const watchUrls = (ids: readonly string[]) => ids.map((id) => `https://www.youtube.com/watch?v=${id}`);
const UPLOADS = videoIds('up', 3);
const LONG = videoIds('lg', 520);
const MID = videoIds('md', 120);

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
const listExtension = { truncated: z.boolean(), added: Added.optional() };
const ChannelResult = ChannelImport.extend(listExtension);
const PlaylistResult = PlaylistImport.extend(listExtension);

describe.each(ERAS)('MCP video-list tools (%s)', (era) => {
  let api: YouTubeDataApiStandIn;
  /** Where transcripts are read: knows no video, so added videos end in FAIL at once. */
  let youtube: YouTubeStandIn;
  let test: TestBackend;
  let client: Client;

  beforeAll(async () => {
    api = await startYouTubeDataApiStandIn({
      channels: [{ id: CHANNEL_ID, handle: 'McpDemo', videoIds: UPLOADS }],
      playlists: [
        { id: SHORT_PLAYLIST, videoIds: UPLOADS },
        { id: LONG_PLAYLIST, videoIds: LONG },
        { id: MID_PLAYLIST, videoIds: MID },
      ],
    });
    youtube = await startYouTubeStandIn([]);
  });

  afterAll(async () => {
    await api.close();
    await youtube.close();
  });

  async function open(settings: { withKey: boolean }) {
    test = await openTestBackend({
      allowPrivateNetwork: true,
      youtubeUrl: youtube.baseUrl,
      youtubeApiUrl: api.baseUrl,
      ...(settings.withKey ? { youtubeApiKey: api.apiKey } : {}),
    });
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  }

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  async function callOk<T>(name: string, args: Record<string, unknown>, schema: z.ZodType<T>) {
    const result = await call(name, args);
    expect(result.isError, textOf(result)).toBeFalsy();
    return { data: schema.parse(result.structuredContent), text: textOf(result) };
  }

  async function callError(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    return textOf(result);
  }

  describe('with an API key', () => {
    beforeEach(() => open({ withKey: true }));

    it("lists a channel's videos in the spec's shape, saying they are not added yet and how to add them", async () => {
      const { data, text } = await callOk('import_channel', { url: 'https://www.youtube.com/@McpDemo' }, ChannelResult);
      expect(data).toEqual({
        channel_identifier: 'McpDemo',
        identifier_type: 'username',
        video_count: 3,
        videos: watchUrls(UPLOADS),
        truncated: false,
      });
      expect(text).toContain('Channel @McpDemo: 3 video(s).');
      expect(text).toContain(`- ${watchUrls(UPLOADS)[0]}`);
      expect(text).toContain('not in the knowledge base yet: add them with add_sources (youtube_urls), or call import_channel again with add: true');
      expect((await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 1 })).count).toBe(0);

      const byId = await callOk('import_channel', { url: `https://www.youtube.com/channel/${CHANNEL_ID}` }, ChannelResult);
      expect(byId.data).toMatchObject({ channel_identifier: CHANNEL_ID, identifier_type: 'channel_id', video_count: 3 });
      expect(byId.text).toContain(`Channel ${CHANNEL_ID}: 3 video(s).`);
    });

    it('cuts a long playlist to its first 500 URLs; video_count counts them all', async () => {
      const { data, text } = await callOk('import_playlist', { url: `https://www.youtube.com/playlist?list=${LONG_PLAYLIST}` }, PlaylistResult);
      expect(data).toMatchObject({ playlist_id: LONG_PLAYLIST, video_count: 520, truncated: true });
      expect(data.videos).toEqual(watchUrls(LONG.slice(0, 500)));
      expect(text).toContain(`Playlist ${LONG_PLAYLIST}: 520 video(s).`);
      expect(text.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(50);
      expect(text).toContain('…and 470 more: the structured content lists them');
    });

    it('adds the videos with add: true, and says so the second time', async () => {
      const url = `https://www.youtube.com/watch?v=${UPLOADS[0]}&list=${SHORT_PLAYLIST}`;
      const { data, text } = await callOk('import_playlist', { url, add: true }, PlaylistResult);
      expect(data.added).toMatchObject({ guru_slug: 'frob', submitted: 3, added: 3, existing: 0, refused: 0, refusal: null });
      expect(data.added!.results.map((item) => [item.url, item.type, item.status])).toEqual(watchUrls(UPLOADS).map((video) => [video, 'YouTube', 'success']));
      expect(text).toContain('Submitted 3 videos to guru "frob": 3 added as new sources, 0 already there, 0 not added.');
      expect(text).not.toContain('not in the knowledge base yet');

      const again = await callOk('import_channel', { url: 'https://www.youtube.com/@mcpdemo', add: true, guru_slug: 'frob' }, ChannelResult);
      expect(again.data.added).toMatchObject({ submitted: 3, added: 0, existing: 3, refused: 0 });
    });

    it("adds videos up to the guru's limit of 100 and reports the rest as refused, with the reason", async () => {
      const { data, text } = await callOk('import_playlist', { url: `https://www.youtube.com/playlist?list=${MID_PLAYLIST}`, add: true }, PlaylistResult);
      expect(data.added).toMatchObject({ submitted: 120, added: 100, existing: 0, refused: 20, truncated: true });
      // The first 50 are listed; list_sources has them all.
      expect(data.added!.results.map((item) => item.url)).toEqual(watchUrls(MID.slice(0, 50)));
      expect(data.added!.refusal).toBe(
        'Invalid request parameters: youtube_urls: the guru holds 100 YouTube sources and may hold at most 100; 20 more would exceed that.',
      );
      expect(text).toContain('100 added as new sources, 0 already there, 20 not added.');
      expect(text).toContain('Not added because the service refused them: Invalid request parameters: youtube_urls: the guru holds 100 YouTube sources');
      expect((await test.backend.assistant.listDataSources('frob', { page: 1, page_size: 1 })).count).toBe(100);
    });

    it('needs to know the guru only with add: true', async () => {
      await test.backend.admin!.createGuru({ slug: 'other' });
      const listed = await callOk('import_channel', { url: 'https://www.youtube.com/@McpDemo' }, ChannelResult);
      expect(listed.data.video_count).toBe(3);
      expect(await callError('import_channel', { url: 'https://www.youtube.com/@McpDemo', add: true })).toMatch(
        /^No guru selected\nSeveral gurus exist; pass guru_slug as one of: /,
      );
      expect(await callError('import_playlist', { url: `https://www.youtube.com/playlist?list=${SHORT_PLAYLIST}`, add: true, guru_slug: 'nope' })).toMatch(
        /^Guru type nope not found\n/,
      );
    });

    it('names what is wrong with a URL and an unknown channel', async () => {
      expect(await callError('import_channel', { url: 'https://example.com/channel/x' })).toMatch(/^URL is required\n/);
      expect(await callError('import_playlist', { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' })).toMatch(/^URL is required\n/);
      expect(await callError('import_channel', { url: 'https://www.youtube.com/@NobodyHere' })).toMatch(/^Channel not found\nYouTube has no channel/);
    });
  });

  describe('without an API key', () => {
    beforeEach(() => open({ withKey: false }));

    it('says which setting is missing and how to get a key', async () => {
      const text = await callError('import_channel', { url: 'https://www.youtube.com/@McpDemo' });
      expect(text).toMatch(/^No YouTube Data API key is configured; set GURU_YOUTUBE_API_KEY/);
      expect(text).toContain('YouTube Data API v3');
    });
  });

  it('offers both tools with honest annotations', async () => {
    await open({ withKey: true });
    const { tools } = await client.listTools();
    for (const name of ['import_channel', 'import_playlist']) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      // With add: true they write, so they are not read-only.
      expect(tool.annotations, name).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true });
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), name).toEqual(['add', 'guru_slug', 'url']);
      expect(tool.description, name).toContain('add: true adds them');
    }
  });
});
