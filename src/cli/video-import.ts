/** What `import channel` and `import playlist` share: the list printed, and with --add the videos added and followed. */
import type { VideoLists } from '../core/assistant.js';
import type { ImportUrlRequest } from '../core/schemas.js';
import { withBackend } from './backend.js';
import { writeJson, writeLines } from './output.js';
import type { CommandContext } from './spec.js';
import { addUrls, refusalJson, reportAdded } from './url-sources.js';
import { flag, stringOption } from './values.js';

interface VideoList {
  readonly video_count: number;
  readonly videos: readonly string[];
}

export interface VideoImport<List extends VideoList> {
  readonly load: (lists: VideoLists, request: ImportUrlRequest) => Promise<List>;
  /** What was imported, e.g. `Channel @handle`. */
  readonly describe: (list: List) => string;
}

export async function runImport<List extends VideoList>(context: CommandContext, source: VideoImport<List>): Promise<number> {
  const [url] = context.args as [string];
  const slug = stringOption(context.values, 'add');
  const json = flag(context.values, 'json');
  const { stdout } = context.terminal;
  const summary = (list: List) => `${source.describe(list)}: ${list.video_count} video${list.video_count === 1 ? '' : 's'}`;

  return withBackend(context, async ({ assistant }) => {
    // The guru first: a command that cannot add should fail before spending the platform's quota.
    if (slug !== undefined) await assistant.listDataSources(slug, { page: 1, page_size: 1 });
    const list = await source.load(assistant, { url });
    if (slug === undefined) {
      if (json) writeJson(stdout, list);
      else writeLines(stdout, summary(list), ...list.videos);
      return 0;
    }
    if (!json) writeLines(stdout, summary(list));
    if (list.videos.length === 0) {
      if (json) writeJson(stdout, { import: list, sources: [], refused: null });
      return 0;
    }
    const added = await addUrls(context, assistant, slug, 'youtube_urls', list.videos);
    if (json) writeJson(stdout, { import: list, sources: added.rows, refused: refusalJson(added.refusal) });
    return reportAdded(context, added, 'videos', json);
  }, { processing: slug !== undefined });
}
