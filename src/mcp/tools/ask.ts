/** `ask`: an answer from the guru's knowledge base, streamed as progress when asked for. */
import type { McpServer } from '@modelcontextprotocol/server';
import type { ContentBlock } from '@modelcontextprotocol/server';
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
  question: AskRequest.shape.question.describe('The question, in the words of the user. Up to 10,000 characters.'),
  session_id: AskRequest.shape.session_id.describe(
    'Continue an earlier conversation: the session_id of a previous answer. Omit to start a new conversation.',
  ),
  external_user_id: AskRequest.shape.external_user_id.describe(
    'Optional id of the end user in your system; stored with the session. A session keeps the id it started with.',
  ),
  images: AskRequest.shape.images.describe(
    'Optional screenshots or pictures: {data: "data:<mime>;base64,<payload>", name, type}. Read only when the server has a language model that reads images; otherwise the answer\'s attachment_note says they were not read.',
  ),
  log_files: AskRequest.shape.log_files.describe(
    'Optional log files as raw UTF-8 text: {data, name}. Their lines are searched with the knowledge base, cited as references and kept for the follow-ups of the session.',
  ),
  pdf_files: AskRequest.shape.pdf_files.describe(
    'Optional PDF documents: {data: "data:application/pdf;base64,<payload>", name, type}. Their text is searched with the knowledge base like log files. PDFs over the guru\'s limits (by default 3 of up to 10 MB) refuse the question; images and log files over theirs (5 of up to 5 MB, 5 of up to 1 MB) are skipped, as attachment_note says.',
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

export function registerAskTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'ask',
    {
      title: 'Ask the guru',
      description: [
        "Ask the guru a question and get an answer written from its knowledge base: Markdown text, numbered references to the sources it used, and a trust score from 0 to 100 (how well the sources support the answer).",
        "Use it for questions about the guru's topic instead of answering from memory, and cite its references.",
        'For a follow-up question in the same conversation pass the session_id of the earlier answer; the guru then knows the context.',
        'A trust score of 0 means the knowledge base had nothing relevant: say so instead of guessing, or add knowledge with add_sources.',
        `Besides the answer, it returns the passages of the knowledge base the answer drew on, best first (heading path, link, text), within evidence_tokens (default ${EVIDENCE_TOKENS_DEFAULT}, at most ${EVIDENCE_TOKENS_MAX}; 0: none): read them to write your own reply.`,
        'The first text content is the answer; the second its trust score, session, references and the passages; structured content has the fields, not the texts again.',
        `When the call carries a progressToken, progress notifications follow the work: first stage lines, each message starting with "${STAGE_PREFIX}" (e.g. "${STAGE_PREFIX}Searching the knowledge base"), then the answer text as it is written, one piece per message. No stage line comes after the first piece of text, so the messages after the stage lines, joined, are the answer's content.`,
      ].join(' '),
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
