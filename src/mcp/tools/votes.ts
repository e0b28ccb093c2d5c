/** `record_vote`: an end user's upvote or downvote on an answer, with optional feedback. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { MAX_VOTE_FEEDBACK, RecordVoteRequest, Vote, type RecordedVote } from '../../core/schemas.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

const RecordVoteParameters = lazySchema(() => z.object({
  content_slug: RecordVoteRequest.shape.content_slug.describe('slug of the answer (ask, get_session)'),
  vote_type: Vote,
  feedback: z
    .string()
    .optional()
    .describe(`The user's words, at most ${MAX_VOTE_FEEDBACK} characters`),
  binge_id: RecordVoteRequest.shape.binge_id.describe('Session id the answer must belong to'),
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
      description:
        'Record the user\'s upvote or downvote (and feedback) on an answer with can_receive_feedback true. The first vote stands.',
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
