/** `guru-mcp enduser erase <slug> <external_user_id> [--yes] [--json]` */
import { createInterface } from 'node:readline/promises';
import { withBackend } from '../backend.js';
import { CommandFailure, UsageError } from '../failures.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext, Terminal } from '../spec.js';
import { flag } from '../values.js';

/** Asks on the terminal; only "yes" goes ahead. */
async function confirmed(terminal: Terminal, question: string): Promise<boolean> {
  const prompt = createInterface({ input: terminal.stdin, output: terminal.stderr, terminal: false });
  try {
    return (await prompt.question(question)).trim().toLowerCase() === 'yes';
  } finally {
    prompt.close();
  }
}

export async function run(context: CommandContext): Promise<number> {
  const [slug, externalUserId] = context.args as [string, string];
  const { terminal } = context;
  if (!flag(context.values, 'yes')) {
    if (!terminal.stdin.isTTY) throw new UsageError('erasing needs --yes when not run on a terminal (nothing was erased)', 'enduser erase');
    const question = `Erase everything the guru ${slug} holds about end user ${externalUserId}? This cannot be undone. Type yes to erase: `;
    if (!(await confirmed(terminal, question))) throw new CommandFailure('not erased');
  }
  const erased = await withBackend(context, ({ assistant }) => assistant.eraseEndUserData(slug, externalUserId));
  if (flag(context.values, 'json')) {
    writeJson(terminal.stdout, erased);
  } else {
    const counts = Object.entries(erased.deleted).map(([kind, count]) => `${String(count)} ${kind.replace('_', ' ')}`);
    writeLines(terminal.stdout, `Erased end user ${erased.external_user_id} in ${slug}: ${counts.join(', ')}.`);
  }
  return 0;
}
