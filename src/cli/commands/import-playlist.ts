/** `guru-mcp import playlist <url> [--add SLUG] [--json]` */
import type { CommandContext } from '../spec.js';
import { runImport } from '../video-import.js';

export function run(context: CommandContext): Promise<number> {
  return runImport(context, {
    load: (lists, request) => lists.importPlaylist(request),
    describe: (list) => `Playlist ${list.playlist_id}`,
  });
}
