/** `guru-mcp import channel <url> [--add SLUG] [--json]` */
import type { CommandContext } from '../spec.js';
import { runImport } from '../video-import.js';

export function run(context: CommandContext): Promise<number> {
  return runImport(context, {
    load: (lists, request) => lists.importChannel(request),
    describe: (list) =>
      `Channel ${list.identifier_type === 'username' ? `@${list.channel_identifier.replace(/^@/, '')}` : list.channel_identifier}`,
  });
}
