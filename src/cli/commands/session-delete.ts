/** `guru-mcp session-delete [<slug>] <id> [--json]` */
import { withGuru } from '../backend.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const deleted = await withGuru(context, ({ assistant }, { slug, args: [id] }) => assistant.deleteSession(slug, id!));
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, deleted);
  else writeLines(context.terminal.stdout, `${deleted.msg}: ${deleted.session_id}`);
  return 0;
}
