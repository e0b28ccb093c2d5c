/** `guru-mcp follow-ups [<slug>] <answer> [--session ID] [--json]` */
import type { FollowUpResponse } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag, stringOption } from '../values.js';

/** The suggestions as lines, also shown by `ask --follow-ups` after the answer. */
export function renderFollowUps(examples: FollowUpResponse): string[] {
  if (examples.follow_up_examples.length === 0) return ['No follow-up questions: the knowledge base has nothing more around this answer.'];
  return ['You could ask next:', ...examples.follow_up_examples.map((question, index) => `  ${index + 1}. ${question}`)];
}

export async function run(context: CommandContext): Promise<number> {
  const session = stringOption(context.values, 'session');
  const examples = await withGuru(context, ({ assistant }, { slug, args: [answer = ''] }) =>
    assistant.followUpExamples(slug, { question_slug: answer, ...(session === undefined ? {} : { binge_id: session }) }),
  );
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, examples);
  else writeLines(context.terminal.stdout, ...renderFollowUps(examples));
  return 0;
}
