/**
 * The steps of an answer that use the language model, each with its way back
 * when the model fails: a follow-up rewritten into a standalone question (else
 * asked as typed), the end user's profile and memories recalled (else none)
 * and new facts they state kept, and the answer generated from the selected
 * context (else the extractive answer). Only the caller's abort ends a step
 * with an error.
 */
import type { Logger } from '../../../log.js';
import { describeError } from '../../../log.js';
import type { ChatModel } from '../../../providers/chat.js';
import { fuseRanked } from '../../search/fusion.js';
import { parseQuery } from '../../search/query.js';
import { withSynonyms } from '../../search/synonyms.js';
import type { ChunkHit, Retriever } from '../../search/retriever.js';
import type { AnswerDraft } from '../answerer.js';
import { selectContext } from './context-window.js';
import { generateAnswer, type GenerationOptions, type WrittenAnswer } from './generation.js';
import { statedFacts } from './memories.js';
import type { EarlierTurn, Recollection } from './prompts.js';
import { standaloneQuestion } from './rewrite.js';

export type { Recollection } from './prompts.js';

/** Where the end users' profiles and memories live (the end-users capability). */
export interface EndUserMemory {
  recall(guru: string, externalUserId: string): Promise<Recollection>;
  remember(guru: string, externalUserId: string, facts: readonly string[]): Promise<void>;
}

/** Candidates for the context, per query. */
const CANDIDATES = 40;

export interface WriteRequest {
  readonly guruId: number;
  readonly guruName: string;
  readonly question: string;
  /** Chunks found by meaning (hybrid search), best first. */
  readonly related: readonly ChunkHit[];
  readonly draft: AnswerDraft;
  readonly instructions: string;
  readonly recollection: Recollection | undefined;
  /** Searches the knowledge base and the question's attachments, when it has some. */
  readonly retriever?: Retriever;
  /** The question's images as data URLs, when the model reads images; never stored with the session. */
  readonly images?: readonly string[];
}

export class ModelPipeline {
  readonly #chat: ChatModel;
  readonly #retriever: Retriever;
  readonly #memory: EndUserMemory;
  readonly #logger: Logger;

  constructor(chat: ChatModel, retriever: Retriever, memory: EndUserMemory, logger: Logger) {
    this.#chat = chat;
    this.#retriever = retriever;
    this.#memory = memory;
    this.#logger = logger;
  }

  /** The follow-up `message` as a question that stands on its own. */
  async standalone(message: string, earlier: readonly EarlierTurn[], signal: AbortSignal | undefined): Promise<string> {
    if (earlier.length === 0) return message;
    return this.#guarded('rewriting the follow-up', signal, message, async () => (await standaloneQuestion(this.#chat, earlier, message, signal)) ?? message);
  }

  recall(guru: string, externalUserId: string): Promise<Recollection | undefined> {
    return this.#guarded('recalling the end user', undefined, undefined, () => this.#memory.recall(guru, externalUserId));
  }

  /**
   * Keeps the durable facts the end user states in `message`. Runs beside the answer and never
   * fails (not even when the caller aborts), so that an answer that fails leaves nothing unawaited.
   */
  async learn(guru: string, externalUserId: string, message: string, signal: AbortSignal | undefined): Promise<void> {
    try {
      const facts = await statedFacts(this.#chat, message, signal);
      if (facts.length > 0) await this.#memory.remember(guru, externalUserId, facts);
    } catch (error) {
      if (!signal?.aborted) this.#logger.warn('keeping memories failed', { error: describeError(error) });
    }
  }

  /**
   * The generated answer; the draft itself when the knowledge does not answer the question. A
   * question with images is always put to the model, with whatever the search found (maybe
   * nothing): the image may be the question, e.g. a screenshot of an error. An answer that cites no
   * source gets trust 0 and takes no votes, as any other.
   */
  async write(request: WriteRequest, options: GenerationOptions): Promise<WrittenAnswer> {
    const images = request.images ?? [];
    if (!request.draft.answered && images.length === 0) return { ...request.draft, streamed: false };
    const retriever = request.retriever ?? this.#retriever;
    const hits = fuseRanked([retriever.search(request.guruId, withSynonyms(parseQuery(request.question)), { limit: CANDIDATES }), request.related], (hit) => hit.chunkId);
    const sources = selectContext(retriever, hits);
    if (sources.length === 0 && images.length === 0) return { ...request.draft, streamed: false };
    return generateAnswer(this.#chat, { ...request, sources, images }, options, this.#logger);
  }

  /** `step`, or `fallback` when it fails (logged); the caller's abort passes. */
  async #guarded<T>(what: string, signal: AbortSignal | undefined, fallback: T, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (signal?.aborted) throw error;
      this.#logger.warn(`${what} failed`, { error: describeError(error) });
      return fallback;
    }
  }
}
