/**
 * Channel and playlist URLs as people paste them: with or without scheme, `www.` or `m.`, with a
 * channel tab (`/videos`) or tracking parameters. Anything else is refused with the operation's
 * invalid-request error and a hint that says what shape was expected.
 */
import { Errors, type Operation } from '../../core/errors.js';

/** A channel as its URL names it. `handle` is without the leading `@`, as typed (decoded from %-escapes). */
export type ChannelRef = { readonly type: 'channel_id'; readonly id: string } | { readonly type: 'username'; readonly handle: string };

const YOUTUBE_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com']);
const SHORT_HOST = 'youtu.be';
/** Every channel id is `UC` and 22 base64url characters. */
const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;
/** YouTube's rule: 3 to 30 letters or digits of any script, `_`, `-`, `.` and `·`. */
const HANDLE = /^[\p{L}\p{M}\p{N}_.·-]{3,30}$/u;
/** Playlist ids: `PL…`, `UU…`, `OLAK5uy_…` and the like. */
const PLAYLIST_ID = /^[A-Za-z0-9_-]{2,64}$/;

const CHANNEL_EXAMPLES = 'https://www.youtube.com/@handle or https://www.youtube.com/channel/UC… (the channel id)';
const PLAYLIST_EXAMPLE = 'https://www.youtube.com/watch?v={video_id}&list={playlist_id} or https://www.youtube.com/playlist?list={playlist_id}';

export function parseChannelUrl(input: string): ChannelRef {
  const op = 'import_channel';
  const url = youtubeUrl(input, op, `a channel URL such as ${CHANNEL_EXAMPLES}`);
  const [first, second] = segments(url);
  if (first?.startsWith('@')) {
    const handle = decoded(first.slice(1));
    if (handle === undefined || !HANDLE.test(handle)) {
      throw refused(op, `${input} does not name a valid channel handle: handles are 3 to 30 letters, digits, '_', '-', '.' or '·' after the @`);
    }
    return { type: 'username', handle };
  }
  if (first === 'channel') {
    if (second === undefined || !CHANNEL_ID.test(second)) {
      throw refused(op, `${input} does not hold a channel id after /channel/: a channel id is UC followed by 22 letters, digits, '-' or '_'`);
    }
    return { type: 'channel_id', id: second };
  }
  if (first === 'c' || first === 'user') {
    throw refused(op, `${input} is a legacy /${first}/ channel URL, which cannot be resolved; open the channel and use its address of the form ${CHANNEL_EXAMPLES}`);
  }
  if (url.searchParams.has('list')) {
    throw refused(op, `${input} is a playlist URL; import it with import_playlist, or give ${CHANNEL_EXAMPLES}`);
  }
  throw refused(op, `${input} is not a channel URL; give ${CHANNEL_EXAMPLES}`);
}

export function parsePlaylistUrl(input: string): string {
  const op = 'import_playlist';
  const url = youtubeUrl(input, op, `a playlist URL such as ${PLAYLIST_EXAMPLE}`, true);
  const [first] = segments(url);
  const isPlaylistPage = url.hostname === SHORT_HOST || first === 'watch' || first === 'playlist';
  const list = url.searchParams.get('list');
  if (!isPlaylistPage) {
    const channel = first?.startsWith('@') || first === 'channel';
    const detail = channel ? `${input} is a channel URL; import it with import_channel` : `${input} is not a playlist URL`;
    throw refused(op, `${detail}; give ${PLAYLIST_EXAMPLE}`);
  }
  if (list === null || list === '') {
    throw refused(op, `${input} has no list= parameter, so it names no playlist; give ${PLAYLIST_EXAMPLE}`);
  }
  if (!PLAYLIST_ID.test(list)) {
    throw refused(op, `${input} has a list= parameter that is not a playlist id (letters, digits, '-' and '_')`);
  }
  return list;
}

/** The input as a URL on a YouTube host; a missing scheme is taken as https. */
function youtubeUrl(input: string, op: Operation, expected: string, allowShortHost = false): URL {
  const text = input.trim();
  if (text === '') throw refused(op, `Give ${expected}`);
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text.replace(/^\/+/, '')}`;
  let url: URL;
  try {
    url = new URL(absolute);
  } catch {
    throw refused(op, `${input} is not a URL; give ${expected}`);
  }
  const onYouTube = YOUTUBE_HOSTS.has(url.hostname) || (allowShortHost && url.hostname === SHORT_HOST);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !onYouTube) {
    throw refused(op, `${input} is not a YouTube URL; give ${expected}`);
  }
  return url;
}

function segments(url: URL): string[] {
  return url.pathname.split('/').filter((segment) => segment !== '');
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function refused(op: Operation, detail: string) {
  return Errors.invalidRequest(op, detail);
}
