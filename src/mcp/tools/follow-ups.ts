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
  question_slug: z.string().optional().describe('The slug of the answer (from ask or get_session). Either this or question is required.'),
  question: z.string().optional().describe('The question as asked, when the slug is not at hand: its latest answer is used'),
  binge_id: z.string().optional().describe('Optional session id of the answer; when given, the answer must belong to it'),
  guru_slug: guruSlugParameter,
}));
type FollowUpParameters = z.infer<typeof FollowUpParameters>;

export function registerFollowUpTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'follow_up_examples',
    {
      title: 'Suggest follow-up questions',
      description: [
        'Suggest up to 3 questions a user would plausibly ask after an answer of ask, each one the guru can answer from its knowledge base (sections next to the ones the answer cited, not yet covered in the session).',
        'Offer them to the user, or pass one to ask with the same session_id. The first call makes them; later calls return the same ones with cached: true. An answer that found nothing gets none.',
      ].join(' '),
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
