/**
 * Retrieve → select → compose → grade. Given a question (and, for a follow-up,
 * the question before it), finds the passages that answer it and writes an
 * extractive answer with references and a trust score.
 */
import type { Reference } from '../../core/schemas.js';
import { parseQuery, type TextQuery } from '../search/query.js';
import { fuseRanked } from '../search/fusion.js';
import type { ChunkHit, Retriever } from '../search/retriever.js';
import { composeExtractive, noAnswer, type Passage } from './extractive.js';
import { coverage, inverseDocumentFrequency, trustScore } from './trust.js';

const CANDIDATES = 12;
const MAX_PASSAGES = 3;
const MAX_PASSAGES_PER_SOURCE = 2;
/** A further passage must score at least this share of the best one, unless it adds missing words. */
const RELATIVE_SCORE_FLOOR = 0.6;

export interface AnswerDraft {
  readonly content: string;
  readonly references: Reference[];
  readonly trustScore: number;
  /** False when the knowledge base held nothing that answers the question. */
  readonly answered: boolean;
}

export interface QuestionContext {
  readonly guruId: number;
  readonly guruName: string;
  readonly question: string;
  /** The previous question of the same session, for follow-ups. */
  readonly previousQuestion?: string;
}

export class Answerer {
  readonly #retriever: Retriever;
  readonly #chunkCount: (guruId: number) => number;

  constructor(retriever: Retriever, chunkCount: (guruId: number) => number) {
    this.#retriever = retriever;
    this.#chunkCount = chunkCount;
  }

  /** `related` are chunks found by meaning (vector search), fused with the word matches. */
  draft(context: QuestionContext, related: readonly ChunkHit[] = []): AnswerDraft {
    const own = parseQuery(context.question);
    const withContext = context.previousQuestion === undefined ? undefined : parseQuery(`${context.previousQuestion} ${context.question}`);
    // A question made only of function words ("and why?") takes its topic from the one before it.
    const graded: TextQuery = own.onlyStopWords && withContext ? withContext : own;
    if (graded.onlyStopWords || graded.match === undefined) return this.#nothing(context);

    const queries = [own.onlyStopWords ? undefined : own, withContext].filter((query) => query !== undefined);
    const lists = queries.map((query) => this.#retriever.search(context.guruId, query, { limit: CANDIDATES }));
    if (related.length > 0) lists.push([...related]);
    const candidates = fuseRanked(lists, (hit) => hit.chunkId).slice(0, CANDIDATES);
    if (candidates.length === 0) return this.#nothing(context);

    const weights = this.#termWeights(context.guruId, graded.terms);
    const presence = this.#retriever.termPresence(
      graded.terms,
      candidates.map((hit) => hit.chunkId),
    );
    const chosen = this.#choose(candidates, weights, presence);
    const grade = coverage(
      weights,
      presence,
      chosen.map((hit) => hit.chunkId),
    );
    const trust = trustScore(grade);
    if (trust === 0) return this.#nothing(context);

    const marked = this.#retriever.highlighted(
      graded,
      chosen.map((hit) => hit.chunkId),
    );
    const passages: Passage[] = chosen.map((hit) => ({
      sourceId: hit.sourceId,
      title: hit.title,
      headings: hit.headings,
      url: hit.url,
      marked: marked.get(hit.chunkId) ?? hit.body,
    }));
    const { content, references } = composeExtractive(passages, trust < 50);
    return { content, references, trustScore: trust, answered: true };
  }

  /**
   * How much each question word matters: its rarity in the guru's knowledge.
   * A word the knowledge base never uses weighs as much as its rarest word
   * does, no more: it may name a missing topic ("kubernetes") or be mere
   * phrasing ("happen"), and one such word must not sink an answer alone.
   */
  #termWeights(guruId: number, terms: readonly string[]): Map<string, number> {
    const chunkCount = this.#chunkCount(guruId);
    const frequencies = terms.map((term) => this.#retriever.documentFrequency(guruId, term));
    const seen = frequencies.filter((frequency) => frequency > 0);
    const unseenFrequency = seen.length > 0 ? Math.min(...seen) : 0;
    return new Map(
      terms.map((term, i) => [term, inverseDocumentFrequency(chunkCount, frequencies[i] || unseenFrequency)]),
    );
  }

  /**
   * The best passage, then others that either score close to it or hold
   * question words the chosen ones lack; at most two from one source.
   */
  #choose(
    candidates: readonly ChunkHit[],
    weights: ReadonlyMap<string, number>,
    presence: ReadonlyMap<string, ReadonlySet<number>>,
  ): ChunkHit[] {
    const [best, ...rest] = candidates;
    if (!best) return [];
    const chosen = [best];
    const perSource = new Map([[best.sourceId, 1]]);
    for (const hit of rest) {
      if (chosen.length >= MAX_PASSAGES) break;
      if ((perSource.get(hit.sourceId) ?? 0) >= MAX_PASSAGES_PER_SOURCE) continue;
      const before = coverage(weights, presence, chosen.map((c) => c.chunkId)).all;
      const after = coverage(weights, presence, [...chosen, hit].map((c) => c.chunkId)).all;
      if (hit.score < best.score * RELATIVE_SCORE_FLOOR && after <= before) continue;
      chosen.push(hit);
      perSource.set(hit.sourceId, (perSource.get(hit.sourceId) ?? 0) + 1);
    }
    return chosen;
  }

  #nothing(context: QuestionContext): AnswerDraft {
    return { ...noAnswer(context.guruName), trustScore: 0, answered: false };
  }
}
