/** `answer_progress`: the live progress line of an end user's answer, for showing while it is written. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { AnswerProgress } from '../../core/schemas.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

const AnswerProgressParameters = lazySchema(() => z.object({
  // Checked by the port, so that a blank id gets the spec's message rather than a schema error.
  external_user_id: z.string().describe('The external_user_id given to ask'),
  guru_slug: guruSlugParameter,
}));
type AnswerProgressParameters = z.infer<typeof AnswerProgressParameters>;

export function registerAnswerProgressTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'answer_progress',
    {
      title: 'Progress of an answer',
      description:
        'While ask answers an end user (external_user_id), read its stage line and updated_at. Poll at most every 1-2 s.',
      inputSchema: AnswerProgressParameters,
      outputSchema: AnswerProgress,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'answer_progress', 'answer_progress', async (args: AnswerProgressParameters) => {
      const guru = await context.gurus.select('answer_progress', args.guru_slug);
      const progress = await context.assistant.answerProgress(guru, { external_user_id: args.external_user_id });
      return toolResult(progress, renderProgress(progress));
    }),
  );
}

function renderProgress(progress: AnswerProgress): string {
  if (progress.updated_at === null) return 'No answer in progress: nothing was reported for this end user in the last 2 minutes.';
  return `${progress.status_text} (updated ${new Date(progress.updated_at * 1000).toISOString()})`;
}
