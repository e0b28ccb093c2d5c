/** `guru-mcp answer-progress [<slug>] <user> [--json]` */
import type { AnswerProgress } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export function renderProgress(progress: AnswerProgress): string {
  if (progress.updated_at === null) return 'Nothing in progress (no line in the last 2 minutes).';
  return `${progress.status_text}  (${new Date(progress.updated_at * 1000).toISOString()})`;
}

export async function run(context: CommandContext): Promise<number> {
  const progress = await withGuru(context, ({ assistant }, { slug, args: [user = ''] }) => assistant.answerProgress(slug, { external_user_id: user }));
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, progress);
  else writeLines(context.terminal.stdout, renderProgress(progress));
  return 0;
}
