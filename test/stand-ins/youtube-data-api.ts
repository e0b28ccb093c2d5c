/**
 * A YouTube Data API v3 stand-in speaking the documented wire format under `/youtube/v3`:
 * channels.list (`part`, one of `id` / `forHandle` / `forUsername`; an unknown channel is a 200
 * without `items`, as the real API answers), playlistItems.list (`part`, `playlistId`,
 * `maxResults` up to 50, opaque `pageToken`/`nextPageToken`), the API key in the `key` query
 * parameter, and errors in Google's shape:
 * `{"error": {"code", "message", "errors": [{"message", "domain", "reason"}], "status", "details"?}}`.
 * A channel's uploads playlist is `UU` + its id after `UC`; one that never uploaded has no
 * uploads playlist to list (404 playlistNotFound), like YouTube.
 */
import { json, type LoopbackServer, type RecordedRequest, type Reply, replying, startLoopbackServer } from '../support/loopback-server.js';

export interface ChannelFixture {
  /** `UC` + 22 characters. */
  readonly id: string;
  /** Without `@`; matched case-insensitively, as YouTube does. */
  readonly handle?: string;
  readonly videoIds: readonly string[];
}

export interface PlaylistFixture {
  readonly id: string;
  readonly videoIds: readonly string[];
  /** Private playlists cannot be listed with an API key (403 playlistItemsNotAccessible). */
  readonly private?: boolean;
}

export interface YouTubeDataApiFixtures {
  readonly channels?: readonly ChannelFixture[];
  readonly playlists?: readonly PlaylistFixture[];
  /** Keys of a project that has not enabled the API (403 accessNotConfigured). */
  readonly disabledKeys?: readonly string[];
}

export interface YouTubeDataApiStandIn {
  readonly server: LoopbackServer;
  /** `http://127.0.0.1:PORT/youtube/v3`, the value for GURU_YOUTUBE_API_URL. */
  readonly baseUrl: string;
  /** The one key the stand-in accepts. */
  readonly apiKey: string;
  /** From now on every call fails with 403 quotaExceeded, as when the day's units are spent. */
  exhaustQuota(): void;
  close(): Promise<void>;
}

export const DATA_API_KEY = 'AIzaSyD-standin-9f3c2b7a1e5d4c8b0a6f2e1d9';
const PREFIX = '/youtube/v3/';
const MAX_RESULTS = 50;
const DEFAULT_RESULTS = 5;

export async function startYouTubeDataApiStandIn(fixtures: YouTubeDataApiFixtures): Promise<YouTubeDataApiStandIn> {
  const channels = fixtures.channels ?? [];
  const playlists = new Map<string, PlaylistFixture>((fixtures.playlists ?? []).map((playlist) => [playlist.id, playlist]));
  for (const channel of channels) {
    if (channel.videoIds.length > 0) playlists.set(uploadsOf(channel.id), { id: uploadsOf(channel.id), videoIds: channel.videoIds });
  }
  const disabled = new Set(fixtures.disabledKeys ?? []);
  let quotaLeft = true;

  const server = await startLoopbackServer(replying((request) => {
    const path = request.url.pathname;
    if (!path.startsWith(PREFIX)) return notFoundPage();
    const key = request.url.searchParams.get('key');
    if (key === null || key === '') return googleError(403, 'The request is missing a valid API key.', 'forbidden', 'global', 'PERMISSION_DENIED');
    if (disabled.has(key)) {
      return googleError(
        403,
        'YouTube Data API v3 has not been used in project 123456789012 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/youtube.googleapis.com/overview?project=123456789012 then retry.',
        'accessNotConfigured',
        'usageLimits',
        'PERMISSION_DENIED',
        'SERVICE_DISABLED',
      );
    }
    if (key !== DATA_API_KEY) return googleError(400, 'API key not valid. Please pass a valid API key.', 'badRequest', 'global', 'INVALID_ARGUMENT', 'API_KEY_INVALID');
    if (!quotaLeft) {
      return googleError(
        403,
        'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        'quotaExceeded',
        'youtube.quota',
      );
    }
    const part = request.url.searchParams.get('part');
    if (part === null) return googleError(400, 'Required parameter: part', 'required', 'global', 'INVALID_ARGUMENT');
    switch (path.slice(PREFIX.length)) {
      case 'channels':
        return channelList(request, channels);
      case 'playlistItems':
        return playlistItemList(request, playlists);
      default:
        return notFoundPage();
    }
  }));

  return {
    server,
    baseUrl: `${server.origin}/youtube/v3`,
    apiKey: DATA_API_KEY,
    exhaustQuota: () => {
      quotaLeft = false;
    },
    close: () => server.close(),
  };
}

export function uploadsOf(channelId: string): string {
  return `UU${channelId.slice(2)}`;
}

function channelList(request: RecordedRequest, channels: readonly ChannelFixture[]): Reply {
  const query = request.url.searchParams;
  const filters = ['id', 'forHandle', 'forUsername', 'mine'].filter((name) => query.has(name));
  if (filters.length !== 1) {
    return googleError(400, 'Incompatible parameters specified in the request: id, forHandle, forUsername, mine.', 'incompatibleParameters', 'youtube.parameter');
  }
  let found: ChannelFixture[] = [];
  const id = query.get('id');
  const handle = query.get('forHandle');
  if (id !== null) {
    const ids = new Set(id.split(','));
    found = channels.filter((channel) => ids.has(channel.id));
  } else if (handle !== null) {
    const wanted = handle.replace(/^@/, '').toLowerCase();
    found = channels.filter((channel) => channel.handle?.toLowerCase() === wanted);
  }
  const withContentDetails = (query.get('part') ?? '').split(',').includes('contentDetails');
  return json(200, {
    kind: 'youtube#channelListResponse',
    etag: etag(`channels:${query.toString()}`),
    pageInfo: { totalResults: found.length, resultsPerPage: 5 },
    // Like the real API: no `items` member at all when nothing matched.
    ...(found.length === 0
      ? {}
      : {
          items: found.map((channel) => ({
            kind: 'youtube#channel',
            etag: etag(channel.id),
            id: channel.id,
            ...(withContentDetails ? { contentDetails: { relatedPlaylists: { likes: '', uploads: uploadsOf(channel.id) } } } : {}),
          })),
        }),
  });
}

function playlistItemList(request: RecordedRequest, playlists: ReadonlyMap<string, PlaylistFixture>): Reply {
  const query = request.url.searchParams;
  const playlistId = query.get('playlistId');
  if (playlistId === null) {
    return googleError(400, 'No filter selected. Expected one of: playlistId, id', 'missingRequiredParameter', 'youtube.parameter');
  }
  const maxResults = Number(query.get('maxResults') ?? DEFAULT_RESULTS);
  if (!Number.isInteger(maxResults) || maxResults < 0 || maxResults > MAX_RESULTS) {
    return googleError(400, `Invalid value '${query.get('maxResults')}'. Values must be within the range: [0, 50]`, 'invalidParameter', 'global');
  }
  const playlist = playlists.get(playlistId);
  if (!playlist) {
    return googleError(404, "The playlist identified with the request's <code>playlistId</code> parameter cannot be found.", 'playlistNotFound', 'youtube.playlistItem');
  }
  if (playlist.private) {
    return googleError(403, 'The request is not properly authorized to retrieve the specified playlist.', 'playlistItemsNotAccessible', 'youtube.playlistItem');
  }
  const token = query.get('pageToken');
  const offset = token === null ? 0 : offsetOf(token, playlistId);
  if (offset === undefined) return googleError(400, 'The request specifies an invalid page token.', 'invalidPageToken', 'youtube.parameter');
  const slice = playlist.videoIds.slice(offset, offset + maxResults);
  const next = offset + maxResults < playlist.videoIds.length ? offset + maxResults : undefined;
  return json(200, {
    kind: 'youtube#playlistItemListResponse',
    etag: etag(`${playlistId}:${offset}`),
    ...(next === undefined ? {} : { nextPageToken: pageToken(playlistId, next) }),
    ...(offset === 0 ? {} : { prevPageToken: pageToken(playlistId, Math.max(0, offset - maxResults)) }),
    items: slice.map((videoId, index) => ({
      kind: 'youtube#playlistItem',
      etag: etag(`${playlistId}:${videoId}`),
      id: Buffer.from(`${playlistId}.${offset + index}`).toString('base64url'),
      contentDetails: { videoId, videoPublishedAt: new Date(Date.UTC(2024, 0, 1) + (offset + index) * 86_400_000).toISOString() },
    })),
    pageInfo: { totalResults: playlist.videoIds.length, resultsPerPage: maxResults },
  });
}

/** Opaque to clients, like YouTube's `EAAaBlBUOkNESQ`-style tokens; bound to its playlist. */
function pageToken(playlistId: string, offset: number): string {
  return `EAAa${Buffer.from(JSON.stringify({ p: playlistId, o: offset })).toString('base64url')}`;
}

function offsetOf(token: string, playlistId: string): number | undefined {
  try {
    const decoded = JSON.parse(Buffer.from(token.replace(/^EAAa/, ''), 'base64url').toString('utf8')) as { p?: unknown; o?: unknown };
    return decoded.p === playlistId && typeof decoded.o === 'number' ? decoded.o : undefined;
  } catch {
    return undefined;
  }
}

function etag(seed: string): string {
  return Buffer.from(seed).toString('base64url').slice(0, 27);
}

/** Google's error envelope; `detailReason` adds the newer google.rpc.ErrorInfo entry. */
export function googleError(code: number, message: string, reason: string, domain: string, status?: string, detailReason?: string): Reply {
  return json(code, {
    error: {
      code,
      message,
      errors: [{ message, domain, reason }],
      ...(status === undefined ? {} : { status }),
      ...(detailReason === undefined
        ? {}
        : { details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: detailReason, domain: 'googleapis.com', metadata: { service: 'youtube.googleapis.com' } }] }),
    },
  });
}

function notFoundPage(): Reply {
  return { status: 404, headers: { 'content-type': 'text/html; charset=UTF-8' }, body: '<!DOCTYPE html><html><title>Error 404 (Not Found)!!1</title><p>The requested URL was not found on this server.</p></html>' };
}
