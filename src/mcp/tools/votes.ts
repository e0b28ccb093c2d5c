/** `record_vote`: an end user's upvote or downvote on an answer, with optional feedback. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { MAX_VOTE_FEEDBACK, RecordVoteRequest, Vote, type RecordedVote } from '../../core/schemas.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

const RecordVoteParameters = lazySchema(() => z.object({
  content_slug: RecordVoteRequest.shape.content_slug.describe('The slug of the answer voted on (the `slug` of an ask result or of a get_session turn)'),
  vote_type: Vote.describe('upvote when the answer helped, downvote when it did not'),
  feedback: z
    .string()
    .optional()
    .describe(`Optional words of the end user on the answer, at most ${MAX_VOTE_FEEDBACK} characters`),
  binge_id: RecordVoteRequest.shape.binge_id.describe('Optional session id of the answer; when given, the answer must belong to it'),
  guru_slug: guruSlugParameter,
}));
type RecordVoteParameters = z.infer<typeof RecordVoteParameters>;

/** Both answers of the service in one object shape, as MCP wants for structured content. */
const VoteOutput = lazySchema(() => z.object({
  vote: Vote.describe('The vote that stands on the answer'),
  feedback: z.string().nullable().optional().describe('The feedback recorded with this vote; null without any'),
  msg: z.literal('Already voted').optional().describe('Present when the answer already had a vote: this call changed nothing'),
}));

export function registerVoteTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'record_vote',
    {
      title: 'Vote on an answer',
      description: [
        "Record the end user's upvote or downvote on an answer of ask, with optional feedback (at most 200 characters). The vote shows as user_vote of the turn in get_session.",
        'Only answers with can_receive_feedback true take votes. The first vote stands: voting again answers "Already voted" with the vote already recorded.',
      ].join(' '),
      inputSchema: RecordVoteParameters,
      outputSchema: VoteOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'record_vote', 'record_vote', async (args: RecordVoteParameters) => {
      const { guru_slug, ...request } = args;
      const guru = await context.gurus.select('record_vote', guru_slug);
      const recorded = await context.assistant.recordVote(guru, request);
      return toolResult(recorded, renderVote(request.content_slug, recorded));
    }),
  );
}

function renderVote(slug: string, recorded: RecordedVote): string {
  if ('msg' in recorded) return `The answer ${slug} already has a vote (${recorded.vote}); it stays as it is.`;
  return `Recorded ${recorded.vote === 'upvote' ? 'an upvote' : 'a downvote'} on the answer ${slug}${recorded.feedback === null ? '' : ' with its feedback'}.`;
}
