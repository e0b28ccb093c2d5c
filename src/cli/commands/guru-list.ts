/** `guru-mcp guru list [--json]` */
import { adminOf, withBackend } from '../backend.js';
import { commandLine } from '../invocation.js';
import { columns, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const gurus = await withBackend(context, (backend) => adminOf(backend).listGurus());
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) {
    writeJson(stdout, gurus);
  } else if (gurus.length === 0) {
    writeLines(stdout, `No gurus yet. Create one with: ${commandLine(context.config, 'guru create <slug>')}`);
  } else {
    writeLines(stdout, ...columns([['SLUG', 'NAME', 'CREATED'], ...gurus.map((guru) => [guru.slug, guru.name, guru.date_created])]));
  }
  return 0;
}
