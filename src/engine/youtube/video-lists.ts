/**
 * Channel and playlist import: the video URLs of a channel's uploads or of a playlist, read from
 * the YouTube Data API v3 with an API key. A channel is resolved with channels.list (by id or by
 * handle) to its uploads playlist; a playlist is read with playlistItems.list, 50 items a page,
 * following nextPageToken through every page. Videos come in the API's order, each once.
 */
import * as z from 'zod';
import type { Operation } from '../../core/errors.js';
import type { ChannelImport, PlaylistImport } from '../../core/schemas.js';
import type { HttpFetcher } from '../../net/http-fetcher.js';
import { DataApi, NOT_ACCESSIBLE, NotFound } from './data-api.js';
import { YouTubeErrors } from './errors.js';
import { parseChannelUrl, parsePlaylistUrl, type ChannelRef } from './urls.js';

export interface VideoListSettings {
  /** GURU_YOUTUBE_API_KEY: a key of a Google Cloud project with the YouTube Data API v3 enabled. */
  readonly apiKey: string | undefined;
  /** GURU_YOUTUBE_API_URL; default https://www.googleapis.com/youtube/v3. Tests point it at a stand-in. */
  readonly baseUrl?: string;
  /** Waits before retrying a 5xx answer, a timeout or a broken connection; default 0.5 s and 2 s (three attempts). */
  readonly retryDelaysMs?: readonly number[];
  /** For when the daily quota renews; default the system clock. */
  readonly clock?: () => Date;
}

export const DEFAULT_API_URL = 'https://www.googleapis.com/youtube/v3';
const DEFAULT_RETRY_DELAYS_MS = [500, 2000];
/** playlistItems.list's largest page. */
const PAGE_SIZE = '50';

const ChannelList = z.object({
  items: z
    .array(
      z.object({
        id: z.string(),
        contentDetails: z.object({ relatedPlaylists: z.object({ uploads: z.string().optional() }).optional() }).optional(),
      }),
    )
    .optional(),
});

const PlaylistItemList = z.object({
  nextPageToken: z.string().optional(),
  items: z.array(z.object({ contentDetails: z.object({ videoId: z.string().min(1) }) })).optional(),
});

export class VideoListImporter {
  readonly #fetcher: HttpFetcher;
  readonly #settings: VideoListSettings;

  constructor(fetcher: HttpFetcher, settings: VideoListSettings) {
    this.#fetcher = fetcher;
    this.#settings = settings;
  }

  async importChannel(url: string, signal?: AbortSignal): Promise<ChannelImport> {
    const channel = parseChannelUrl(url);
    const api = this.#api('import_channel');
    const filter: Record<string, string> = channel.type === 'channel_id' ? { id: channel.id } : { forHandle: `@${channel.handle}` };
    let found: z.infer<typeof ChannelList>;
    try {
      found = await api.list('channels', { part: 'contentDetails', ...filter }, ChannelList, signal);
    } catch (error) {
      throw error instanceof NotFound ? YouTubeErrors.channelNotFound(described(channel)) : error;
    }
    const item = found.items?.[0];
    if (item === undefined) throw YouTubeErrors.channelNotFound(described(channel));
    const uploads = item.contentDetails?.relatedPlaylists?.uploads;
    let videos: string[] = [];
    if (uploads) {
      try {
        videos = await this.#videos(api, uploads, signal);
      } catch (error) {
        // YouTube answers playlistNotFound for the uploads playlist of a channel that never uploaded.
        if (!(error instanceof NotFound)) throw error;
      }
    }
    return {
      channel_identifier: channel.type === 'channel_id' ? channel.id : channel.handle,
      identifier_type: channel.type,
      video_count: videos.length,
      videos,
    };
  }

  async importPlaylist(url: string, signal?: AbortSignal): Promise<PlaylistImport> {
    const playlistId = parsePlaylistUrl(url);
    const api = this.#api('import_playlist');
    let videos: string[];
    try {
      videos = await this.#videos(api, playlistId, signal);
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
      const isPrivate = [...error.reasons].some((reason) => NOT_ACCESSIBLE.has(reason));
      throw YouTubeErrors.playlistNotFound(playlistId, isPrivate ? 'private' : 'missing');
    }
    return { playlist_id: playlistId, video_count: videos.length, videos };
  }

  /** Every video of a playlist, page by page, as watch URLs in the API's order, each once. */
  async #videos(api: DataApi, playlistId: string, signal: AbortSignal | undefined): Promise<string[]> {
    const videos = new Set<string>();
    const tokensSeen = new Set<string>();
    let pageToken: string | undefined;
    do {
      const params = { part: 'contentDetails', maxResults: PAGE_SIZE, playlistId, ...(pageToken === undefined ? {} : { pageToken }) };
      const page = await api.list('playlistItems', params, PlaylistItemList, signal);
      for (const item of page.items ?? []) videos.add(`https://www.youtube.com/watch?v=${item.contentDetails.videoId}`);
      pageToken = page.nextPageToken || undefined;
      if (pageToken !== undefined) {
        if (tokensSeen.has(pageToken)) throw YouTubeErrors.unexpectedAnswer(api.op, 'playlistItems handed out the same nextPageToken twice');
        tokensSeen.add(pageToken);
      }
    } while (pageToken !== undefined);
    return [...videos];
  }

  /** The Data API as configured for one operation: the key and base URL are checked per call, so a bad setting fails the import, not the engine. */
  #api(op: Operation): DataApi {
    const apiKey = this.#settings.apiKey?.trim();
    if (!apiKey) throw YouTubeErrors.missingApiKey(op);
    return new DataApi(this.#fetcher, op, {
      apiKey,
      baseUrl: apiBase(op, this.#settings.baseUrl ?? DEFAULT_API_URL),
      retryDelaysMs: this.#settings.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
      clock: this.#settings.clock ?? (() => new Date()),
    });
  }
}

/** The base URL as a directory (trailing slash), so resource names resolve under it. */
function apiBase(op: Operation, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw YouTubeErrors.badApiUrl(op, value);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw YouTubeErrors.badApiUrl(op, value);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

function described(channel: ChannelRef): string {
  return channel.type === 'channel_id' ? `with the id ${channel.id}` : `with the handle @${channel.handle}`;
}
