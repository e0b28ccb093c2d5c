/** `ask`: an answer from the guru's knowledge base, streamed as progress when asked for. */
import type { ContentBlock, McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { EVIDENCE_TOKENS_DEFAULT, EVIDENCE_TOKENS_MAX } from '../../core/evidence.js';
import { lazySchema } from '../../core/lazy-schema.js';
import { Answer, AskRequest } from '../../core/schemas.js';
import { evidenceFields, EvidenceTokensParameter, EvidenceSummary } from '../evidence.js';
import { ProgressReporter } from '../progress.js';
import { NO_PASSAGES, renderAnswerFields, renderPassages } from '../render.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

const AskParameters = lazySchema(() => z.object({
  question: AskRequest.shape.question,
  session_id: AskRequest.shape.session_id.describe(
    'To follow up an earlier answer',
  ),
  external_user_id: AskRequest.shape.external_user_id.describe(
    'Your id of the end user',
  ),
  images: AskRequest.shape.images.describe(
    'Pictures (data: URIs), read if the model can',
  ),
  log_files: AskRequest.shape.log_files.describe(
    'Log files as text, searched with the knowledge base',
  ),
  pdf_files: AskRequest.shape.pdf_files.describe(
    'PDFs as data: URIs, searched too',
  ),
  evidence_tokens: EvidenceTokensParameter,
  guru_slug: guruSlugParameter,
}));
type AskParameters = z.infer<typeof AskParameters>;

/** Marks a progress message as a stage line, not a piece of the answer text. */
export const STAGE_PREFIX = '» ';

/** The answer's fields but its text (the first text content), and the places of the passages (their text follows the answer's). */
const AskResult = lazySchema(() => Answer.omit({ content: true }).extend({
  evidence: EvidenceSummary.optional().describe(
    'The passages the answer drew on, best first, as the second text content shows them (their text is there, not repeated here). Absent when the server cannot get passages (a hosted REST API).',
  ),
}));

export function registerAskTool(server: McpServer, context: ToolContext): RegisteredTool {
  return server.registerTool(
    'ask',
    {
      title: 'Ask the guru',
      description:
        `Answer a question from the guru's knowledge base, in Markdown with numbered references and a trust score (0-100). Prefer it to memory on the guru's topic; cite the references; on a low or 0 score say so. Follow up with the answer's session_id. Returns the passages used within evidence_tokens (default ${EVIDENCE_TOKENS_DEFAULT}, max ${EVIDENCE_TOKENS_MAX}). Progress: stage lines starting "${STAGE_PREFIX}", then the answer text.`,
      inputSchema: AskParameters,
      outputSchema: AskResult,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guarded(context, 'ask', 'ask', async (args: AskParameters, extra) => {
      const { guru_slug, evidence_tokens = EVIDENCE_TOKENS_DEFAULT, ...question } = args;
      const guru = await context.gurus.select('ask', guru_slug);
      const progress = new ProgressReporter(extra, context);
      let steps = 0;
      let writing = false;
      // Stage lines after the text has begun (a remote service's retry waits) would mix into it: they are left out.
      const onStage = (line: string) => {
        if (!writing) progress.report(++steps, `${STAGE_PREFIX}${line}`);
      };
      const onText = (delta: string) => {
        writing = true;
        progress.report(++steps, delta);
      };
      const answer = await context.assistant.ask(
        guru,
        { ...question, fetch_existing: false },
        { origin: 'MCP', signal: extra.mcpReq.signal, ...(evidence_tokens > 0 ? { evidence: { tokens: evidence_tokens } } : {}), ...(progress.requested ? { onStage, onText } : {}) },
      );
      await progress.flush();
      const links: ContentBlock[] = answer.question_url.startsWith('guru://')
        ? [
            {
              type: 'resource_link',
              uri: answer.question_url,
              name: `session ${answer.session_id}`,
              description: 'The whole conversation so far',
              mimeType: 'text/markdown',
            },
          ]
        : [];
      const { content, evidence, ...fields } = answer;
      const passages = evidence ? renderPassages('Passages', evidence, (_, index) => `[${index + 1}]`) : evidence_tokens > 0 ? NO_PASSAGES : undefined;
      const details = ['---', renderAnswerFields(answer), ...(passages === undefined ? [] : ['', passages])].join('\n');
      return {
        content: [{ type: 'text', text: content }, { type: 'text', text: details }, ...links],
        structuredContent: { ...fields, ...(evidence ? { evidence: evidenceFields(evidence) } : {}) },
      };
    }),
  );
}
