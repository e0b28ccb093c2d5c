/** `guru-mcp integration remove [<slug>] <jira|zendesk|confluence>` */
import { adminOf, withGuru } from '../backend.js';
import { CommandFailure } from '../failures.js';
import { integrationKindOf } from '../integration-kinds.js';
import { commandLine } from '../invocation.js';
import { shellQuote, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';

export async function run(context: CommandContext): Promise<number> {
  const { slug, kind, removed } = await withGuru(context, async (backend, { slug, args: [kindText] }) => {
    const kind = integrationKindOf(kindText!, 'integration remove');
    return { slug, kind, removed: await adminOf(backend).removeIntegration(slug, kind) };
  });
  if (!removed) throw new CommandFailure(`${slug} has no ${kind} integration`, `See the integrations with: ${commandLine(context.config, `integration list ${shellQuote(slug)}`)}`);
  writeLines(context.terminal.stdout, `Removed the ${kind} integration of ${slug}. Its sources stay; reindexing them needs it again.`);
  return 0;
}
