/** `guru-mcp enduser erase [<slug>] <external_user_id> [--yes] [--json]` */
import { createInterface } from 'node:readline';
import { withGuru } from '../backend.js';
import { CommandFailure, UsageError } from '../failures.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext, Terminal } from '../spec.js';
import { flag } from '../values.js';

/** Asks on the terminal; only "yes" goes ahead. */
async function confirmed(terminal: Terminal, question: string): Promise<boolean> {
  terminal.stderr.write(question);
  const lines = createInterface({ input: terminal.stdin, crlfDelay: Infinity });
  try {
    for await (const line of lines) return line.trim().toLowerCase() === 'yes';
    return false;
  } finally {
    lines.close();
  }
}

export async function run(context: CommandContext): Promise<number> {
  const { terminal } = context;
  const ask = !flag(context.values, 'yes');
  if (ask && !terminal.stdin.isTTY) throw new UsageError('erasing needs --yes when not run on a terminal (nothing was erased)', 'enduser erase');
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
