/** `semantic_search`: the sources most related to a question, without an answer. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { EVIDENCE_TOKENS_DEFAULT, EVIDENCE_TOKENS_MAX } from '../../core/evidence.js';
import { lazySchema } from '../../core/lazy-schema.js';
import { SemanticSearchRequest, SemanticSearchResponse } from '../../core/schemas.js';
import { evidenceFields, EvidenceSummary, EvidenceTokensParameter } from '../evidence.js';
import { renderSearch } from '../render.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

const SearchParameters = lazySchema(() => z.object({
  question: SemanticSearchRequest.shape.question,
  labels: SemanticSearchRequest.shape.labels.describe(
    'Only sources with one of these labels or types (Text, Website...)',
  ),
  external_user_id: SemanticSearchRequest.shape.external_user_id.describe(
    'Your id of the end user',
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

export function registerSearchTool(server: McpServer, context: ToolContext): RegisteredTool {
  return server.registerTool(
    'semantic_search',
    {
      title: 'Find related sources',
      description:
        `Find the sources most related to a question, without an answer: up to 10, best first, with title, link, labels and best excerpts within evidence_tokens (default ${EVIDENCE_TOKENS_DEFAULT}, max ${EVIDENCE_TOKENS_MAX}). Use ask for an answer.`,
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
