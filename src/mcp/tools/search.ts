/** `semantic_search`: the sources most related to a question, without an answer. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { EVIDENCE_TOKENS_DEFAULT } from '../../core/evidence.js';
import { lazySchema } from '../../core/lazy-schema.js';
import { SemanticSearchRequest, SemanticSearchResponse } from '../../core/schemas.js';
import { evidenceFields, EvidenceSummary, EvidenceTokensParameter } from '../evidence.js';
import { renderSearch } from '../render.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

const SearchParameters = lazySchema(() => z.object({
  question: SemanticSearchRequest.shape.question.describe('What to find sources about, in plain words.'),
  labels: SemanticSearchRequest.shape.labels.describe(
    'Only sources carrying at least one of these labels (case-insensitive; at most 20). Every source has its type label (Text, Website, YouTube, ...) plus any labels given when it was added.',
  ),
  external_user_id: SemanticSearchRequest.shape.external_user_id.describe(
    "Optional id of the end user in your system; the search is recorded in that user's data.",
  ),
  evidence_tokens: EvidenceTokensParameter,
  guru_slug: guruSlugParameter,
}));
type SearchParameters = z.infer<typeof SearchParameters>;

const SearchResult = lazySchema(() => SemanticSearchResponse.extend({
  search_mode: SemanticSearchResponse.shape.search_mode.describe(
    'hybrid: ranked by words and by meaning (an embeddings provider is configured and answering); lexical: by words only',
  ),
  evidence: EvidenceSummary.optional().describe(
    "Where the excerpts the text content shows come from (source: the result's place) and what the budget left out; their text is in the text content only. Absent when the server cannot get passages.",
  ),
}));

export function registerSearchTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'semantic_search',
    {
      title: 'Find related sources',
      description: [
        "Find the sources in the guru's knowledge base most related to a question, without writing an answer.",
        'Returns at most 10 sources, best first, each with title, link (null for internal sources such as text blocks) and labels, and in the text content its best excerpt for the question,',
        `within evidence_tokens (default ${EVIDENCE_TOKENS_DEFAULT}, characters / 4; 0: none).`,
        'Use it to see which documents cover a topic or to point the user to pages; use ask to get an answer.',
        'search_mode says how sources were ranked: hybrid (words and meaning, with an embeddings provider) or lexical (words only).',
      ].join(' '),
      inputSchema: SearchParameters,
      outputSchema: SearchResult,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'semantic_search', 'semantic_search', async (args: SearchParameters) => {
      const { guru_slug, evidence_tokens = EVIDENCE_TOKENS_DEFAULT, ...request } = args;
      const guru = await context.gurus.select('semantic_search', guru_slug);
      const { evidence, ...result } = await context.assistant.semanticSearch(guru, request, evidence_tokens > 0 ? { evidence: { tokens: evidence_tokens } } : {});
      const structured = evidence ? { ...result, evidence: evidenceFields(evidence) } : result;
      return toolResult(structured, renderSearch(request.question, result, evidence, evidence_tokens));
    }),
  );
}
