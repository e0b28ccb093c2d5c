/** `follow_up_examples`: questions a user would plausibly ask next after an answer. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { FollowUpResponse } from '../../core/schemas.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

// Checked by the port, so that a bad request gets the spec's messages rather than a schema error.
const FollowUpParameters = lazySchema(() => z.object({
  question_slug: z.string().optional().describe('The answer\'s slug, or give question'),
  question: z.string().optional().describe('Its latest answer is used'),
  binge_id: z.string().optional().describe('Session id the answer must belong to'),
  guru_slug: guruSlugParameter,
}));
type FollowUpParameters = z.infer<typeof FollowUpParameters>;

export function registerFollowUpTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'follow_up_examples',
    {
      title: 'Suggest follow-up questions',
      description:
        'Suggest up to 3 follow-up questions to an answer that the guru can answer; ask one with the same session_id.',
      inputSchema: FollowUpParameters,
      outputSchema: FollowUpResponse,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'follow_up_examples', 'follow_up', async (args: FollowUpParameters) => {
      const { guru_slug, ...request } = args;
      const guru = await context.gurus.select('follow_up', guru_slug);
      const examples = await context.assistant.followUpExamples(guru, request);
      return toolResult(examples, renderFollowUps(examples));
    }),
  );
}

function renderFollowUps(examples: FollowUpResponse): string {
  if (examples.follow_up_examples.length === 0) {
    return `No follow-up questions for the answer ${examples.question_slug}: the knowledge base has nothing more around it.`;
  }
  const lines = examples.follow_up_examples.map((question, index) => `${index + 1}. ${question}`);
  return [`Possible follow-up questions (answer ${examples.question_slug}):`, ...lines].join('\n');
}
