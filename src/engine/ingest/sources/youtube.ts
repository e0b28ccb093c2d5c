/**
 * YouTube videos: the title and the transcript through youtube-transcript-plus,
 * written as Markdown paragraphs of about a minute, each opening with its
 * `[mm:ss]` timestamp. The library's three requests go through our fetch
 * functions: the watch page and the caption track through the HttpFetcher (so
 * the address policy and size caps apply), and every youtube.com address is
 * rewritten to `baseUrl` when one is set (a stand-in speaking YouTube's wire format).
 */
import { FetchFailure, type FetchedResponse, type HttpFetcher } from '../../../net/http-fetcher.js';
import { SourceError, type ReadDocument, type SourceReader } from './types.js';

export interface YouTubeSettings {
  /** Where youtube.com requests go instead, e.g. `http://127.0.0.1:4567` for a stand-in. */
  readonly baseUrl?: string;
}

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const YOUTUBE_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com']);
const PATH_FORMS = new Set(['shorts', 'embed', 'live', 'v', 'e']);
const PARAGRAPH_SECONDS = 60;

/** The library's fetch-function argument (its own .d.ts re-exports types by extensionless paths that NodeNext cannot follow). */
interface FetchParams {
  readonly url: string;
  readonly lang?: string;
  readonly userAgent?: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

interface TranscriptSegment {
  readonly text: string;
  /** Seconds from the start of the video. */
  readonly offset: number;
}

interface TranscriptResult {
  readonly videoDetails: { readonly title: string };
  readonly segments: readonly TranscriptSegment[];
}

/** What the player request told about the video, for errors the library words too vaguely. */
interface Playability {
  status?: string;
  reason?: string;
}

export class YouTubeReader implements SourceReader {
  readonly #fetcher: HttpFetcher;
  readonly #base: URL | undefined;

  constructor(fetcher: HttpFetcher, settings: YouTubeSettings = {}) {
    this.#fetcher = fetcher;
    this.#base = settings.baseUrl === undefined ? undefined : new URL(settings.baseUrl);
  }

  async read(input: string, signal?: AbortSignal): Promise<ReadDocument> {
    const id = videoId(input);
    const url = `https://www.youtube.com/watch?v=${id}`;
    const library = await import('youtube-transcript-plus');
    let playability: Playability | undefined;
    let result: TranscriptResult;
    try {
      result = await library.fetchTranscript(id, {
        videoDetails: true,
        ...(signal ? { signal } : {}),
        videoFetch: (params: FetchParams) => this.#get(params),
        transcriptFetch: (params: FetchParams) => this.#get(params),
        playerFetch: async (params: FetchParams) => {
          const response = await this.#post(params);
          playability = await playabilityOf(response.clone());
          return response;
        },
      });
    } catch (error) {
      if (error instanceof FetchFailure || signal?.aborted) throw error;
      const failure = libraryFailure(error);
      if (failure === 'TooManyRequest') {
        throw new FetchFailure('http_status', url, `YouTube is rate-limiting requests for ${url}; try again later`, { status: 429, retryable: true, cause: error });
      }
      if (failure === 'VideoUnavailable' || (playability?.status !== undefined && playability.status !== 'OK')) {
        const reason = playability?.reason ? ` (YouTube says: ${playability.reason})` : '';
        throw new SourceError(`This video is unavailable${reason}: ${url}`, { cause: error });
      }
      if (failure === 'NotAvailable' && playability === undefined) {
        // The library gave up before asking the player: the watch page lacked its configuration.
        throw new SourceError(`YouTube's page for ${url} did not carry the player configuration needed to find captions; try again later`, { cause: error });
      }
      if (failure === 'Disabled' || failure === 'NotAvailable' || failure === 'NotAvailableLanguage') {
        throw new SourceError(`This video has no transcript (captions are disabled or missing): ${url}`, { cause: error });
      }
      throw error;
    }
    const title = result.videoDetails.title.trim() || `YouTube video ${id}`;
    const paragraphs = transcriptParagraphs(result.segments);
    if (paragraphs.length === 0) throw new SourceError(`This video has no transcript (captions are disabled or missing): ${url}`);
    return { title, markdown: `# ${title}\n\n${paragraphs.join('\n\n')}\n`, url };
  }

  async #get(params: FetchParams): Promise<Response> {
    const response = await this.#fetcher.get(this.#rewrite(params.url), {
      headers: requestHeaders(params),
      ...(params.signal ? { signal: params.signal } : {}),
    });
    return asResponse(response);
  }

  /** The Innertube player request: a POST, under the same address policy and caps as the rest. */
  async #post(params: FetchParams): Promise<Response> {
    const response = await this.#fetcher.post(this.#rewrite(params.url), params.body ?? '', {
      headers: { ...requestHeaders(params), ...params.headers },
      ...(params.signal ? { signal: params.signal } : {}),
    });
    return asResponse(response);
  }

  /** youtube.com addresses to the configured base URL, keeping path and query. */
  #rewrite(address: string): string {
    if (!this.#base) return address;
    const url = new URL(address);
    if (!YOUTUBE_HOSTS.has(url.hostname) && !url.hostname.endsWith('.youtube.com')) return address;
    const prefix = this.#base.pathname.replace(/\/+$/, '');
    return new URL(`${prefix}${url.pathname}${url.search}`, this.#base.origin).href;
  }
}

/** The 11-character id of a watch, youtu.be, shorts, embed or live URL. */
export function videoId(input: string): string {
  const refusal = new SourceError(
    `${input} is not a YouTube video URL; give one such as https://www.youtube.com/watch?v=VIDEO_ID or https://youtu.be/VIDEO_ID`,
  );
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw refusal;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refusal;
  const host = url.hostname.toLowerCase();
  const segments = url.pathname.split('/').filter(Boolean);
  let candidate: string | null | undefined;
  if (host === 'youtu.be') candidate = segments[0];
  else if (YOUTUBE_HOSTS.has(host)) {
    if (segments[0] === 'watch' && segments.length === 1) candidate = url.searchParams.get('v');
    else if (segments[0] && PATH_FORMS.has(segments[0])) candidate = segments[1];
  } else if (host === 'www.youtube-nocookie.com' || host === 'youtube-nocookie.com') {
    if (segments[0] === 'embed') candidate = segments[1];
  }
  if (!candidate || !VIDEO_ID.test(candidate)) throw refusal;
  return candidate;
}

/** Paragraphs of about a minute of speech, each opening with the timestamp it starts at. */
export function transcriptParagraphs(segments: readonly TranscriptSegment[]): string[] {
  const paragraphs: string[] = [];
  let start = 0;
  let words: string[] = [];
  const flush = () => {
    if (words.length > 0) paragraphs.push(`[${timestamp(start)}] ${words.join(' ')}`);
    words = [];
  };
  for (const segment of segments) {
    const text = decodeEntities(segment.text).replace(/\s+/g, ' ').trim();
    if (!text) continue;
    if (words.length > 0 && segment.offset >= start + PARAGRAPH_SECONDS) flush();
    if (words.length === 0) start = segment.offset;
    words.push(text);
  }
  flush();
  return paragraphs;
}

/** `mm:ss`, or `h:mm:ss` from an hour on. */
function timestamp(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${String(minutes).padStart(2, '0')}:${rest}`;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Caption text arrives escaped twice; the library undoes one level. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code = entity[1] === 'x' || entity[1] === 'X' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

/** The library's errors by name (`YoutubeTranscriptDisabledError` → `Disabled`); its .d.ts hides the classes from NodeNext. */
function libraryFailure(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  return /^YoutubeTranscript(\w+)Error$/.exec(error.name)?.[1];
}

function requestHeaders(params: FetchParams): Record<string, string> {
  return {
    ...(params.userAgent ? { 'user-agent': params.userAgent } : {}),
    ...(params.lang ? { 'accept-language': params.lang } : {}),
  };
}

function asResponse(response: FetchedResponse): Response {
  return new Response(new Uint8Array(response.body), { status: response.status, headers: response.headers });
}

async function playabilityOf(response: Response): Promise<Playability | undefined> {
  try {
    const json = (await response.json()) as { playabilityStatus?: { status?: unknown; reason?: unknown } };
    const { status, reason } = json.playabilityStatus ?? {};
    return {
      ...(typeof status === 'string' ? { status } : {}),
      ...(typeof reason === 'string' ? { reason } : {}),
    };
  } catch {
    return undefined;
  }
}
