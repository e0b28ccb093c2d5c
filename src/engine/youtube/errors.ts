/**
 * The errors of channel and playlist import beyond the spec's two ("URL is required", "Request was
 * throttled."): the spec leaves the rest unshown, so these are ours. All travel in `msg`, like the
 * operations' documented errors. None carries the API key: texts that come from Google or from a
 * fetch failure pass through `redact` first.
 */
import { fieldOf, GuruError, type Operation } from '../../core/errors.js';

export const API_KEY_SETTING = 'GURU_YOUTUBE_API_KEY';
export const API_URL_SETTING = 'GURU_YOUTUBE_API_URL';

const KEY_HOW_TO =
  'In the Google Cloud console, enable "YouTube Data API v3" for a project (APIs & Services → Library), ' +
  `create an API key for it (APIs & Services → Credentials), and set it as ${API_KEY_SETTING}.`;

function youTubeError(op: Operation, status: number, message: string, extra: { hint?: string; retryAfterSeconds?: number } = {}): GuruError {
  return new GuruError({ message, status, field: fieldOf(op), ...extra });
}

export const YouTubeErrors = {
  /** The deployment has no key: a setting to fix, not a request to change. */
  missingApiKey: (op: Operation) =>
    youTubeError(op, 503, `No YouTube Data API key is configured; set ${API_KEY_SETTING} to an API key of a Google Cloud project with the YouTube Data API v3 enabled`, {
      hint: KEY_HOW_TO,
    }),

  badApiUrl: (op: Operation, value: string) =>
    youTubeError(op, 503, `${API_URL_SETTING} is not an http(s) URL ("${value}"); unset it to use https://www.googleapis.com/youtube/v3`),

  keyRejected: (op: Operation, google: string) =>
    youTubeError(op, 503, `The YouTube Data API rejected the API key in ${API_KEY_SETTING} (${google}); set a valid key`, { hint: KEY_HOW_TO }),

  apiDisabled: (op: Operation) =>
    youTubeError(
      op,
      503,
      `The YouTube Data API v3 is not enabled for the Google Cloud project of the key in ${API_KEY_SETTING}; enable it in the Google Cloud console (APIs & Services → Library), wait a few minutes, and try again`,
    ),

  keyRestricted: (op: Operation, google: string) =>
    youTubeError(
      op,
      503,
      `The API key in ${API_KEY_SETTING} may not be used from this server (${google}); allow this server and the YouTube Data API v3 in the key's restrictions`,
    ),

  quotaExhausted: (op: Operation, secondsToReset: number) =>
    youTubeError(
      op,
      429,
      `The daily YouTube Data API quota of the key in ${API_KEY_SETTING} is used up; it renews at midnight Pacific Time, ${inAbout(secondsToReset)}`,
      {
        retryAfterSeconds: secondsToReset,
        hint: 'Each page of 50 videos costs one unit of the default 10,000 a day; wait for the renewal, or ask Google for a higher quota for the project.',
      },
    ),

  rateLimited: (op: Operation, seconds: number) =>
    youTubeError(op, 429, `The YouTube Data API is limiting the rate of requests; try again in ${seconds} seconds`, { retryAfterSeconds: seconds }),

  channelNotFound: (channel: string) =>
    youTubeError('import_channel', 404, 'Channel not found', { hint: `YouTube has no channel ${channel}; check the URL (open the channel and copy its address).` }),

  playlistNotFound: (playlistId: string, why: 'missing' | 'private') =>
    youTubeError('import_playlist', 404, 'Playlist not found', {
      hint:
        why === 'private'
          ? `The playlist ${playlistId} is private; only public and unlisted playlists can be imported.`
          : playlistId.startsWith('RD')
            ? `${playlistId} is a mix, which YouTube makes for each viewer and does not list; import a saved playlist instead.`
            : `YouTube has no playlist ${playlistId} (or it was deleted); check the list= parameter of the URL.`,
    }),

  /** 5xx answers and broken connections that outlasted the retries. */
  unavailable: (op: Operation, detail: string) =>
    youTubeError(op, 502, `The YouTube Data API is unavailable (${detail}); try again later`),

  timedOut: (op: Operation, detail: string) =>
    youTubeError(op, 504, `The YouTube Data API did not answer in time (${detail}); try again later`),

  /** An answer that is not the Data API's: most likely a wrong GURU_YOUTUBE_API_URL. */
  unexpectedAnswer: (op: Operation, detail: string) =>
    youTubeError(op, 502, `The YouTube Data API answered unexpectedly (${detail}); check ${API_URL_SETTING}, or unset it to use https://www.googleapis.com/youtube/v3`),

  /** The address policy refused GURU_YOUTUBE_API_URL's host; `refusal` says which setting allows it. */
  blockedApiUrl: (op: Operation, refusal: string) => youTubeError(op, 503, `${API_URL_SETTING} points at an address this server may not reach: ${refusal}`),

  refused: (op: Operation, google: string) => youTubeError(op, 502, `The YouTube Data API refused the request (${google})`),
} as const;

function inAbout(seconds: number): string {
  const hours = Math.round(seconds / 3600);
  if (hours >= 2) return `in about ${hours} hours`;
  const minutes = Math.max(1, Math.round(seconds / 60));
  return minutes >= 60 ? 'in about an hour' : `in about ${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** Seconds until the next midnight in America/Los_Angeles, when Data API quotas renew. */
export function secondsUntilQuotaRenewal(now: Date): number {
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/Los_Angeles',
      hourCycle: 'h23',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(now);
    const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((candidate) => candidate.type === type)?.value ?? 0);
    return Math.max(1, 86_400 - (part('hour') * 3600 + part('minute') * 60 + part('second')));
  } catch {
    // A Node built without time-zone data: an hour is a fair guess to come back after.
    return 3600;
  }
}
