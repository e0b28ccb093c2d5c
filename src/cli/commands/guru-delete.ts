/** `guru-mcp guru delete <slug> [--yes] [--json]` */
import { adminOf, withBackend } from '../backend.js';
import { confirmed, mustAsk } from '../confirm.js';
import { CommandFailure } from '../failures.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const { terminal } = context;
  const [slug] = context.args as [string];
  const ask = mustAsk(terminal, flag(context.values, 'yes'), 'deleting', 'guru delete');
  const deleted = await withBackend(context, async (backend) => {
    const admin = adminOf(backend);
    // Named before the question, so that a mistyped slug is said at once and nothing is asked.
    await admin.guruSettings(slug);
    const question = `Delete the guru ${slug} with all its sources, sessions, answers and end-user data? Its API keys stop working. This cannot be undone. Type yes to delete: `;
    if (ask && !(await confirmed(terminal, question))) throw new CommandFailure('not deleted');
    return admin.deleteGuru(slug);
  });
  if (flag(context.values, 'json')) {
    writeJson(terminal.stdout, deleted);
  } else {
    const counts = Object.entries(deleted.deleted).map(([kind, count]) => `${String(count)} ${kind.replace('_', ' ')}`);
    writeLines(terminal.stdout, `Deleted guru ${deleted.slug}: ${counts.join(', ')}. Its API keys no longer work.`);
  }
  return 0;
}
