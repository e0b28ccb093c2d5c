/**
 * Trust with a model: a grading call rates, per cited source, how well it
 * supports what the answer says (full, partial, none), and that is combined
 * with the retrieval evidence the extractive answer is judged by:
 *
 *   trust = round(100 × GRADE_SHARE × support + (1 − GRADE_SHARE) × evidence)
 *
 * where support is the mean over the cited sources (full 1, partial 0.5,
 * none 0) and evidence the extractive trust score (0–90). A grader reply that
 * cannot be read, or that fails, leaves the evidence score alone.
 */
import * as z from 'zod';
import type { ChatModel } from '../../../providers/chat.js';
import { EXTRACTIVE_CEILING } from '../trust.js';
import type { ContextSource } from './context-window.js';
import { jsonReply } from './json-reply.js';
import { gradingMessages } from './prompts.js';

export const GRADE_SHARE = 0.6;
const SUPPORT = { full: 1, partial: 0.5, none: 0 } as const;

const Grades = z.object({
  grades: z.array(z.object({ source: z.coerce.number().int(), support: z.enum(['full', 'partial', 'none']) })),
});

/** Mean support of the cited sources (numbered 1..n as shown), 0–1; undefined when the reply names none of them. */
export async function gradeSupport(
  chat: ChatModel,
  question: string,
  answer: string,
  cited: readonly ContextSource[],
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  const reply = await chat.complete({
    messages: gradingMessages(question, answer, cited),
    temperature: 0,
    maxTokens: 300,
    responseFormat: 'json',
    ...(signal ? { signal } : {}),
  });
  const grades = jsonReply(reply.text, Grades)?.grades.filter((grade) => grade.source >= 1 && grade.source <= cited.length);
  if (!grades || grades.length === 0) return undefined;
  const bySource = new Map(grades.map((grade) => [grade.source, SUPPORT[grade.support]]));
  // A cited source the grader left out supports nothing it was cited for, as far as anyone can tell.
  return cited.reduce((sum, _, i) => sum + (bySource.get(i + 1) ?? 0), 0) / cited.length;
}

/** At most 90, like the extractive score: a model can be wrong about its own sources too. */
export const combinedTrust = (evidence: number, support: number | undefined): number =>
  support === undefined ? evidence : Math.min(EXTRACTIVE_CEILING, Math.round(100 * GRADE_SHARE * support + (1 - GRADE_SHARE) * evidence));
