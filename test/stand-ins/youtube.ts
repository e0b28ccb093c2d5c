/**
 * A YouTube stand-in speaking the wire format youtube-transcript-plus reads:
 * the watch page (HTML carrying `"INNERTUBE_API_KEY":"…"` in its ytcfg), the
 * Innertube player (POST /youtubei/v1/player?key=…, ANDROID client body →
 * playabilityStatus, videoDetails, captions.playerCaptionsTracklistRenderer),
 * and the caption track (GET /api/timedtext: the classic `<transcript><text
 * start dur>` XML, or srv3 when `fmt=srv3` is asked for). Caption track URLs
 * point at https://www.youtube.com like the real ones; readers rewrite them.
 */
import { json, type LoopbackServer, type RecordedRequest, type Reply, replying, startLoopbackServer } from '../support/loopback-server.js';

export interface CaptionFixture {
  /** Seconds. */
  readonly start: number;
  readonly duration: number;
  readonly text: string;
}

export interface YouTubeVideoFixture {
  /** 11 characters. */
  readonly id: string;
  readonly title: string;
  readonly author?: string;
  /** null: the owner turned captions off. */
  readonly captions: readonly CaptionFixture[] | null;
  readonly language?: string;
  /** Not playable: `ERROR`, `LOGIN_REQUIRED`, `UNPLAYABLE` with YouTube's reason. */
  readonly playability?: { readonly status: string; readonly reason: string };
}

export interface YouTubeStandIn {
  readonly server: LoopbackServer;
  readonly baseUrl: string;
  /** The Innertube API key the watch page hands out. */
  readonly apiKey: string;
  close(): Promise<void>;
}

const API_KEY = 'AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8';

export async function startYouTubeStandIn(videos: readonly YouTubeVideoFixture[]): Promise<YouTubeStandIn> {
  const byId = new Map(videos.map((video) => [video.id, video]));
  const server = await startLoopbackServer(replying((request) => {
    const path = request.url.pathname;
    if (request.method === 'GET' && path === '/watch') return watchPage(request.url.searchParams.get('v') ?? '');
    if (request.method === 'POST' && path === '/youtubei/v1/player') return player(request, byId);
    if (request.method === 'GET' && path === '/api/timedtext') return timedText(request, byId);
    return { status: 404, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>404 Not Found</title>' };
  }));
  return { server, baseUrl: server.origin, apiKey: API_KEY, close: () => server.close() };
}

function watchPage(id: string): Reply {
  // Like YouTube: the page answers 200 for any id; the player says whether the video exists.
  const config = { INNERTUBE_API_KEY: API_KEY, INNERTUBE_API_VERSION: 'v1', INNERTUBE_CLIENT_NAME: 'WEB', INNERTUBE_CLIENT_VERSION: '2.20240501.00.00', VISITOR_DATA: 'CgtWaXNpdG9yRGF0YQ%3D%3D' };
  const html = [
    '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charset="utf-8">',
    `<title>${id} - YouTube</title><link rel="canonical" href="https://www.youtube.com/watch?v=${id}">`,
    `<script nonce="abc">ytcfg.set(${JSON.stringify(config)});</script>`,
    '</head><body><ytd-app></ytd-app>',
    `<script nonce="abc">var ytInitialData = {"contents":{}};</script>`,
    '</body></html>',
  ].join('');
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html };
}

function player(request: RecordedRequest, videos: ReadonlyMap<string, YouTubeVideoFixture>): Reply {
  if (request.url.searchParams.get('key') !== API_KEY) {
    return json(400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } });
  }
  let body: { videoId?: unknown; context?: { client?: { clientName?: unknown } } };
  try {
    body = JSON.parse(request.body) as typeof body;
  } catch {
    return json(400, { error: { code: 400, message: 'Invalid JSON payload received.', status: 'INVALID_ARGUMENT' } });
  }
  if (typeof body.videoId !== 'string' || typeof body.context?.client?.clientName !== 'string') {
    return json(400, { error: { code: 400, message: 'Precondition check failed.', status: 'FAILED_PRECONDITION' } });
  }
  const responseContext = { visitorData: 'CgtWaXNpdG9yRGF0YQ%3D%3D', serviceTrackingParams: [] };
  const video = videos.get(body.videoId);
  if (!video || video.playability) {
    const { status, reason } = video?.playability ?? { status: 'ERROR', reason: 'This video is unavailable' };
    return json(200, { responseContext, playabilityStatus: { status, reason, contextParams: 'Q0FFU0FnZ0I=' } });
  }
  const language = video.language ?? 'en';
  return json(200, {
    responseContext,
    playabilityStatus: { status: 'OK', playableInEmbed: true, contextParams: 'Q0FFU0FnZ0I=' },
    streamingData: { expiresInSeconds: '21540', formats: [], adaptiveFormats: [] },
    ...(video.captions === null
      ? {}
      : {
          captions: {
            playerCaptionsTracklistRenderer: {
              captionTracks: [
                {
                  baseUrl:
                    `https://www.youtube.com/api/timedtext?v=${video.id}&caps=asr&opi=112496729&xoaf=5&hl=${language}&ip=0.0.0.0&ipbits=0` +
                    `&expire=1893456000&sparams=ip,ipbits,expire,v,caps,opi,xoaf&signature=ABC123.DEF456&key=yt8&kind=asr&lang=${language}&fmt=srv3`,
                  name: { runs: [{ text: 'English (auto-generated)' }] },
                  vssId: `a.${language}`,
                  languageCode: language,
                  kind: 'asr',
                  isTranslatable: true,
                  trackName: '',
                },
              ],
              audioTracks: [{ captionTrackIndices: [0], defaultCaptionTrackIndex: 0, visibility: 'UNKNOWN', hasDefaultTrack: true, captionsInitialState: 'CAPTIONS_INITIAL_STATE_OFF_RECOMMENDED' }],
              translationLanguages: [{ languageCode: 'de', languageName: { runs: [{ text: 'German' }] } }],
              defaultAudioTrackIndex: 0,
            },
          },
        }),
    videoDetails: {
      videoId: video.id,
      title: video.title,
      lengthSeconds: String(Math.ceil(Math.max(0, ...(video.captions ?? []).map((caption) => caption.start + caption.duration)))),
      keywords: ['demo'],
      channelId: 'UCabcdefghijklmnopqrstuv',
      isOwnerViewing: false,
      shortDescription: `About ${video.title}`,
      isCrawlable: true,
      thumbnail: { thumbnails: [{ url: `https://i.ytimg.com/vi/${video.id}/default.jpg`, width: 120, height: 90 }] },
      allowRatings: true,
      viewCount: '12345',
      author: video.author ?? 'Demo Channel',
      isPrivate: false,
      isUnpluggedCorpus: false,
      isLiveContent: false,
    },
  });
}

function timedText(request: RecordedRequest, videos: ReadonlyMap<string, YouTubeVideoFixture>): Reply {
  const query = request.url.searchParams;
  const video = videos.get(query.get('v') ?? '');
  if (!video?.captions || query.get('signature') === null) return { status: 404, body: '' };
  const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  // Caption text is HTML-escaped before it goes into the XML, so it arrives escaped twice.
  const html = (text: string) => xml(text).replace(/'/g, '&#39;');
  const body =
    query.get('fmt') === 'srv3'
      ? `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>${video.captions
          .map((caption) => `<p t="${Math.round(caption.start * 1000)}" d="${Math.round(caption.duration * 1000)}">${xml(caption.text)}</p>`)
          .join('')}</body></timedtext>`
      : `<?xml version="1.0" encoding="utf-8" ?><transcript>${video.captions
          .map((caption) => `<text start="${caption.start}" dur="${caption.duration}">${xml(html(caption.text))}</text>`)
          .join('')}</transcript>`;
  return { status: 200, headers: { 'content-type': 'text/xml; charset=UTF-8' }, body };
}
