/** `guru-mcp enduser erase [<slug>] <external_user_id> [--yes] [--json]` */
import { withGuru } from '../backend.js';
import { confirmed, mustAsk } from '../confirm.js';
import { CommandFailure } from '../failures.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const { terminal } = context;
  const ask = mustAsk(terminal, flag(context.values, 'yes'), 'erasing', 'enduser erase');
  const { slug, erased } = await withGuru(context, async ({ assistant }, { slug, args: [externalUserId] }) => {
    const question = `Erase everything the guru ${slug} holds about end user ${externalUserId!}? This cannot be undone. Type yes to erase: `;
    if (ask && !(await confirmed(terminal, question))) throw new CommandFailure('not erased');
    return { slug, erased: await assistant.eraseEndUserData(slug, externalUserId!) };
  });
  if (flag(context.values, 'json')) {
    writeJson(terminal.stdout, erased);
  } else {
    const counts = Object.entries(erased.deleted).map(([kind, count]) => `${String(count)} ${kind.replace('_', ' ')}`);
    writeLines(terminal.stdout, `Erased end user ${erased.external_user_id} in ${slug}: ${counts.join(', ')}.`);
  }
  return 0;
}
