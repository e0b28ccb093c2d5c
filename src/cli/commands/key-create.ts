/** `guru-mcp key create [<slug>] [--json]` */
import { adminOf, withGuru } from '../backend.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const created = await withGuru(context, (backend, { slug }) => adminOf(backend).createApiKey(slug));
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) {
    writeJson(stdout, { slug: created.slug, api_key: created.api_key });
  } else {
    writeLines(stdout, `New API key for ${created.slug}: ${created.api_key}`, 'Store the key now: it is shown only once.');
  }
  return 0;
}
