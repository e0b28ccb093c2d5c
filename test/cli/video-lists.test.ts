/**
 * `import channel` and `import playlist`, spawning the built bin against the
 * YouTube Data API stand-in (the lists) and the YouTube stand-in (transcripts
 * of the videos added with --add).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import type { PlaylistImport } from '../../src/core/schemas.js';
import { ChannelImport } from '../../src/core/schemas.js';
import { waitForSources } from '../../src/core/wait-for-sources.js';
import { silentLogger } from '../../src/log.js';
import { startYouTubeDataApiStandIn, type YouTubeDataApiStandIn } from '../stand-ins/youtube-data-api.js';
import { startYouTubeStandIn, type YouTubeStandIn } from '../stand-ins/youtube.js';
import { runCli } from './run-cli.js';

const CHANNEL_ID = 'UCclidemo000000000000001';
const PLAYLIST_ID = 'PLclidemo00000000000000000000001';
const FIVE_PLAYLIST = 'PLclifive00000000000000000000001';
const CAPTIONED = ['cliVideo001', 'cliVideo002'];
const SILENT = 'cliSilent01';
const FIVE = Array.from({ length: 5 }, (_, i) => `cliFive${String(i).padStart(4, '0')}`);
const watchUrl = (id: string) => `https://www.youtube.com/watch?v=${id}`;

interface Row {
  id: number;
  type: string;
  name: string;
  url?: string;
  status: string;
  error: string;
}

let dir: string;
let dataDir: string;
let api: YouTubeDataApiStandIn;
let youtube: YouTubeStandIn;

const env = () => ({ GURU_ALLOW_PRIVATE_NETWORK: '1', GURU_YOUTUBE_URL: youtube.baseUrl, GURU_YOUTUBE_API_URL: api.baseUrl, GURU_YOUTUBE_API_KEY: api.apiKey });
const cli = (args: readonly string[], extraEnv: Record<string, string> = env()) => runCli([...args, '--data-dir', dataDir], { env: extraEnv });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-videos-'));
  dataDir = join(dir, 'data');
  api = await startYouTubeDataApiStandIn({
    channels: [{ id: CHANNEL_ID, handle: 'CliDemo', videoIds: [...CAPTIONED, SILENT] }],
    playlists: [
      { id: PLAYLIST_ID, videoIds: CAPTIONED },
      { id: FIVE_PLAYLIST, videoIds: FIVE },
    ],
  });
  youtube = await startYouTubeStandIn([
    { id: CAPTIONED[0]!, title: 'Calibrating the zorbix coil', captions: [{ start: 0, duration: 5, text: 'Turn the zorbix coil a quarter turn.' }] },
    { id: CAPTIONED[1]!, title: 'Oiling the quibble gear', captions: [{ start: 0, duration: 5, text: 'Two drops of oil on the quibble gear.' }] },
    { id: SILENT, title: 'Silent film', captions: null },
  ]);
  for (const slug of ['docs', 'talks']) {
    const created = await cli(['guru', 'create', slug]);
    expect(created.code, created.stderr).toBe(0);
  }
});

afterAll(async () => {
  await api.close();
  await youtube.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('guru-mcp import', () => {
  it("prints a channel's video count and URLs", async () => {
    const result = await cli(['import', 'channel', 'https://www.youtube.com/@CliDemo']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(['Channel @CliDemo: 3 videos', ...[...CAPTIONED, SILENT].map(watchUrl), ''].join('\n'));

    const json = await cli(['import', 'channel', `https://www.youtube.com/channel/${CHANNEL_ID}`, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(ChannelImport.parse(JSON.parse(json.stdout))).toEqual({
      channel_identifier: CHANNEL_ID,
      identifier_type: 'channel_id',
      video_count: 3,
      videos: [...CAPTIONED, SILENT].map(watchUrl),
    });
  });

  it('adds a playlist with --add, waits for the videos, and prints one row each', async () => {
    const result = await cli(['import', 'playlist', `https://www.youtube.com/playlist?list=${PLAYLIST_ID}`, '--add', 'docs']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Playlist ${PLAYLIST_ID}: 2 videos`);
    expect(lines[1]).toMatch(/^ID\s+TYPE\s+STATUS\s+NAME\s+ERROR$/);
    expect(lines[2]).toMatch(/^\d+\s+YouTube\s+SUCCESS\s+Calibrating the zorbix coil$/);
    expect(lines[3]).toMatch(/^\d+\s+YouTube\s+SUCCESS\s+Oiling the quibble gear$/);
    expect(result.stderr).toContain('Processing: 2/2');

    const search = await cli(['search', 'docs', 'quibble gear']);
    expect(search.stdout).toContain(watchUrl(CAPTIONED[1]!));
  });

  it('exits with 1 when a video fails, naming it, and prints everything as JSON with --json', async () => {
    const result = await cli(['import', 'channel', 'https://www.youtube.com/@clidemo', '--add', 'talks', '--json']);
    expect(result.code).toBe(1);
    const output = JSON.parse(result.stdout) as { import: ChannelImport; sources: Row[]; refused: unknown };
    expect(output.import).toMatchObject({ channel_identifier: 'clidemo', identifier_type: 'username', video_count: 3 });
    expect(output.refused).toBeNull();
    expect(output.sources.map((row) => [row.url, row.status])).toEqual([
      [watchUrl(CAPTIONED[0]!), 'SUCCESS'],
      [watchUrl(CAPTIONED[1]!), 'SUCCESS'],
      [watchUrl(SILENT), 'FAIL'],
    ]);
    expect(output.sources[2]!.error).toContain('no transcript');
    expect(result.stderr).toContain('guru-mcp: 1 of 3 sources failed to process');
  });

  it("adds videos up to the guru's limit of 100 and names the rest with the reason", async () => {
    // A guru holding 98 videos already (unknown to the stand-in, so they end in FAIL at once).
    const config = Config.parse({ dataDir, allowPrivateNetwork: true, youtubeUrl: youtube.baseUrl });
    const backend = await openBackend(config, silentLogger);
    try {
      await backend.admin!.createGuru({ slug: 'full' });
      const fillers = Array.from({ length: 98 }, (_, i) => watchUrl(`fill${String(i).padStart(7, '0')}`));
      const created = await backend.assistant.createDataSources('full', { youtube_urls: fillers });
      await waitForSources(backend.assistant, 'full', created.map((item) => item.id));
    } finally {
      await backend.close();
    }

    const result = await cli(['import', 'playlist', `https://www.youtube.com/watch?v=${FIVE[0]}&list=${FIVE_PLAYLIST}`, '--add', 'full']);
    expect(result.code).toBe(1);
    const rows = result.stdout.trimEnd().split('\n').slice(2);
    expect(rows).toHaveLength(2);
    expect(result.stderr).toContain('guru-mcp: 3 of 5 videos not added: Invalid request parameters\n');
    expect(result.stderr).toContain('hint: youtube_urls: the guru holds 98 YouTube sources and may hold at most 100; 5 more would exceed that.');

    const json = await cli(['import', 'playlist', `https://www.youtube.com/playlist?list=${FIVE_PLAYLIST}`, '--add', 'full', '--json']);
    expect(json.code).toBe(1);
    const output = JSON.parse(json.stdout) as { import: PlaylistImport; sources: Row[]; refused: { urls: string[]; message: string; hint: string } };
    expect(output.sources.map((row) => row.url)).toEqual(FIVE.slice(0, 2).map(watchUrl));
    expect(output.refused).toEqual({
      urls: FIVE.slice(2).map(watchUrl),
      message: 'Invalid request parameters',
      hint: 'youtube_urls: the guru holds 100 YouTube sources and may hold at most 100; 3 more would exceed that.',
    });
  });

  it('checks the guru before spending the API quota', async () => {
    const before = api.server.requests.length;
    const result = await cli(['import', 'channel', 'https://www.youtube.com/@CliDemo', '--add', 'nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('guru-mcp: Guru type nope not found');
    expect(api.server.requests.length).toBe(before);
  });

  it('says which setting is missing without an API key', async () => {
    const result = await cli(['import', 'channel', 'https://www.youtube.com/@CliDemo'], { GURU_ALLOW_PRIVATE_NETWORK: '1', GURU_YOUTUBE_API_URL: api.baseUrl });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('guru-mcp: No YouTube Data API key is configured; set GURU_YOUTUBE_API_KEY');
    expect(result.stderr).toContain('hint: In the Google Cloud console, enable "YouTube Data API v3"');
  });

  it('names what is wrong with a URL, and needs the subcommand and the URL', async () => {
    const wrong = await cli(['import', 'playlist', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('guru-mcp: URL is required\nhint: ');

    const noSubcommand = await cli(['import']);
    expect(noSubcommand.code).toBe(2);
    expect(noSubcommand.stderr).toContain('guru-mcp: "import" needs a subcommand');
    const noUrl = await cli(['import', 'channel', '--add', 'docs']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('guru-mcp: missing <url>');
    const help = await cli(['import', '--help']);
    expect(help.stdout).toContain('import channel <url>');
    expect(help.stdout).toContain('import playlist <url>');
  });
});
