/** `guru-mcp integration list [<slug>] [--json]` */
import { adminOf, withGuru } from '../backend.js';
import { commandLine } from '../invocation.js';
import { columns, shellQuote, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const { slug, integrations } = await withGuru(context, async (backend, { slug }) => ({ slug, integrations: await adminOf(backend).listIntegrations(slug) }));
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) {
    writeJson(stdout, integrations);
  } else if (integrations.length === 0) {
    writeLines(stdout, `${slug} has no integrations. Set one with: ${commandLine(context.config, `integration set ${shellQuote(slug)} <jira|zendesk|confluence> --url URL`)}`);
  } else {
    writeLines(
      stdout,
      ...columns([
        ['KIND', 'URL', 'EMAIL', 'SET'],
        ...integrations.map((item) => [item.kind, item.base_url, item.email ?? '', item.date_created]),
      ]),
    );
  }
  return 0;
}
