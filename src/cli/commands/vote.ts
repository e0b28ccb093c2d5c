/** `guru-mcp vote [<slug>] <answer> <up|down> [--feedback TEXT] [--session ID] [--json]` */
import type { RecordedVote, Vote } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { UsageError } from '../failures.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag, stringOption } from '../values.js';

const VOTES: Readonly<Record<string, Vote>> = { up: 'upvote', upvote: 'upvote', down: 'downvote', downvote: 'downvote' };

export function renderVote(slug: string, recorded: RecordedVote): string {
  if ('msg' in recorded) return `Already voted: the answer ${slug} keeps its ${recorded.vote}.`;
  return `Recorded: ${recorded.vote} on ${slug}${recorded.feedback === null ? '' : `, with feedback "${recorded.feedback}"`}.`;
}

/** The vote a word asks for: up or down (also upvote, downvote), any case. */
function voteOf(word: string): Vote {
  const vote = VOTES[word.toLowerCase()];
  if (vote === undefined) throw new UsageError(`the vote must be up or down, not "${word}"`, 'vote');
  return vote;
}

export async function run(context: CommandContext): Promise<number> {
  const feedback = stringOption(context.values, 'feedback');
  const session = stringOption(context.values, 'session');
  const { answer, recorded } = await withGuru(context, async ({ assistant }, { slug, args: [answer = '', word = ''] }) => ({
    answer,
    recorded: await assistant.recordVote(slug, {
      content_slug: answer,
      vote_type: voteOf(word),
      ...(feedback === undefined ? {} : { feedback }),
      ...(session === undefined ? {} : { binge_id: session }),
    }),
  }));
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, recorded);
  else writeLines(context.terminal.stdout, renderVote(answer, recorded));
  return 0;
}
