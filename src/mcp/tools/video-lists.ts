/** `import_channel` and `import_playlist`: the video URLs of a YouTube channel or playlist, optionally added as sources. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { ChannelImport, PlaylistImport } from '../../core/schemas.js';
import type { ImportUrlRequest } from '../../core/schemas.js';
import { submitUrls } from '../../core/submit-urls.js';
import { toolResult } from '../results.js';
import { AddedSources, MAX_LISTED_URLS, renderAdded, renderUrlList, summarizeSubmission } from '../url-lists.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

/** The guru's limit of videos on the local engine, for the model's planning. */
const VIDEO_LIMIT = 100;

const addParameter = z
  .boolean()
  .default(false)
  .describe(
    `Also add the videos as sources (at most ${VIDEO_LIMIT} a guru)`,
  );

const importGuruSlug = guruSlugParameter.describe(
  'Guru to add to (with add)',
);

const ChannelParameters = lazySchema(() => z.object({
  url: z
    .string()
    .min(1)
    .max(4096)
    .describe('…/channel/UC… or …/@handle'),
  add: addParameter,
  guru_slug: importGuruSlug,
}));

const PlaylistParameters = lazySchema(() => z.object({
  url: z
    .string()
    .min(1)
    .max(4096)
    .describe('A URL with list=PL…'),
  add: addParameter,
  guru_slug: importGuruSlug,
}));
type ImportParameters = z.infer<typeof ChannelParameters>;

/** Made inside the result schemas that hold it: zod finds descriptions by the object (src/core/lazy-schema.ts). */
const listExtension = () => ({
  videos: z.array(z.string()).describe(`Video URLs, in the platform's order; at most the first ${MAX_LISTED_URLS} (video_count counts them all)`),
  truncated: z.boolean().describe('true when videos holds only the first part of the list'),
  added: AddedSources.optional().describe('Only with add: true: what became of the videos'),
});
const ChannelResult = lazySchema(() => ChannelImport.extend(listExtension()));
const PlaylistResult = lazySchema(() => PlaylistImport.extend(listExtension()));

interface VideoList extends Record<string, unknown> {
  readonly video_count: number;
  readonly videos: string[];
}

interface ImportTool<List extends VideoList> {
  readonly name: 'import_channel' | 'import_playlist';
  readonly load: (request: ImportUrlRequest) => Promise<List>;
  /** What was imported, e.g. `Channel @handle`. */
  readonly describe: (list: List) => string;
}

/** Imports the list, cuts it for the result, and adds the videos with `add`. */
async function importVideos<List extends VideoList>(context: ToolContext, tool: ImportTool<List>, args: ImportParameters) {
  // The guru first: a call that cannot add should fail before spending the platform's quota.
  const guru = args.add ? await context.gurus.select('create_sources', args.guru_slug) : undefined;
  if (guru !== undefined) await context.assistant.listDataSources(guru, { page: 1, page_size: 1 });
  const list = await tool.load({ url: args.url });
  const shown = list.videos.slice(0, MAX_LISTED_URLS);
  const result = { ...list, videos: shown, truncated: shown.length < list.videos.length };
  const lines = [`${tool.describe(list)}: ${list.video_count} video(s).`];
  lines.push(...renderUrlList(shown, list.videos.length - shown.length, 'the structured content lists them'));
  if (guru === undefined) {
    if (list.videos.length > 0) {
      lines.push(
        `These videos are not in the knowledge base yet: add them with add_sources (youtube_urls), or call ${tool.name} again with add: true. A guru holds at most ${VIDEO_LIMIT} videos.`,
      );
    }
    return toolResult(result, lines.join('\n'));
  }
  const added = summarizeSubmission(guru, list.videos, await submitUrls(context.assistant, guru, 'youtube_urls', list.videos));
  if (list.videos.length > 0) lines.push(renderAdded(added, 'videos'));
  return toolResult({ ...result, added }, lines.join('\n'));
}

const importDescription = (what: string) =>
  `List ${what}'s videos (needs GURU_YOUTUBE_API_KEY); add: true adds them as sources.`;

export function registerVideoListTools(server: McpServer, context: ToolContext): void {
  const channel: ImportTool<ChannelImport> = {
    name: 'import_channel',
    load: (request) => context.assistant.importChannel(request),
    describe: (list) => `Channel ${list.identifier_type === 'username' ? `@${list.channel_identifier.replace(/^@/, '')}` : list.channel_identifier}`,
  };
  const playlist: ImportTool<PlaylistImport> = {
    name: 'import_playlist',
    load: (request) => context.assistant.importPlaylist(request),
    describe: (list) => `Playlist ${list.playlist_id}`,
  };
  // Annotations cannot depend on the arguments: with add: true these write, so they do not claim to be read-only.
  const annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };

  server.registerTool(
    'import_channel',
    {
      title: "List a YouTube channel's videos",
      description: importDescription('a YouTube channel'),
      inputSchema: ChannelParameters,
      outputSchema: ChannelResult,
      annotations,
    },
    guarded(context, 'import_channel', 'import_channel', (args: ImportParameters) => importVideos(context, channel, args)),
  );

  server.registerTool(
    'import_playlist',
    {
      title: "List a YouTube playlist's videos",
      description: importDescription('a YouTube playlist'),
      inputSchema: PlaylistParameters,
      outputSchema: PlaylistResult,
      annotations,
    },
    guarded(context, 'import_playlist', 'import_playlist', (args: ImportParameters) => importVideos(context, playlist, args)),
  );
}
