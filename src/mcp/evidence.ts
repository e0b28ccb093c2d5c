/**
 * The evidence the ask and semantic_search tools return (MCP only): the budget parameter, and the
 * structured summary of the passages, whose text the tool's text content carries (not repeated here).
 */
import * as z from 'zod';
import { EVIDENCE_TOKENS_MAX, estimateTokens, evidenceNote, type EvidenceSet } from '../core/evidence.js';
import { lazySchema } from '../core/lazy-schema.js';

export const EvidenceTokensParameter = z
  .number()
  .int()
  .min(0)
  .max(EVIDENCE_TOKENS_MAX)
  .optional()
  .describe(
    'Passage tokens (characters / 4); 0: none',
  );

export const EvidenceSummary = lazySchema(() => z.object({
  budget_tokens: z.number().int(),
  tokens: z.number().int().describe('Estimated tokens of the passages given (characters / 4).'),
  left_out: z.number().int().describe('Passages found but left out for the budget.'),
  note: z.string().optional().describe('Set when passages were cut or left out: how to see more.'),
  passages: z.array(z.object({
    title: z.string(),
    headings: z.array(z.string()),
    link: z.string().nullable(),
    source: z.number().int().optional().describe('semantic_search: the place (0-based) of the source the excerpt comes from.'),
    tokens: z.number().int(),
    cut: z.boolean(),
  })),
}));
export type EvidenceSummary = z.infer<typeof EvidenceSummary>;

/** The set without the passages' text. */
export function evidenceFields(evidence: EvidenceSet): EvidenceSummary {
  const note = evidenceNote(evidence);
  return {
    budget_tokens: evidence.budget_tokens,
    tokens: evidence.tokens,
    left_out: evidence.left_out,
    ...(note === undefined ? {} : { note }),
    passages: evidence.passages.map(({ text, headings, ...passage }) => ({ ...passage, headings: [...headings], tokens: estimateTokens(text) })),
  };
}
