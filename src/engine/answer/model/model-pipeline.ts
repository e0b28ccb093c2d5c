/**
 * The steps of an answer that use the language model, each with its way back
 * when the model fails: a follow-up rewritten into a standalone question (else
 * asked as typed), the question reworded in the documentation's vocabulary
 * (else searched as asked), the end user's profile and memories recalled (else
 * none) and new facts they state kept, the passages that answer picked from the
 * best candidates (else the best candidates), and the answer generated from the
 * selected context (else the extractive answer). Only the caller's abort ends a
 * step with an error; the rewording and the picking also give up after their
 * own short timeout.
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
import { documentationWording, pickPassages } from './retrieval-steps.js';

export type { Recollection } from './prompts.js';

/** Where the end users' profiles and memories live (the end-users capability). */
export interface EndUserMemory {
  recall(guru: string, externalUserId: string): Promise<Recollection>;
  remember(guru: string, externalUserId: string, facts: readonly string[]): Promise<void>;
}

/** Candidates for the context, per query. */
const CANDIDATES = 40;

/** How long the steps before retrieval and before generation may take; 0 turns a step off. */
export interface ModelStepSettings {
  /** The question reworded in the documentation's vocabulary (GURU_LLM_REWRITE_TIMEOUT_MS). */
  readonly rewriteTimeoutMs: number;
  /** The passages that answer picked from the best candidates (GURU_LLM_PICK_TIMEOUT_MS). */
  readonly pickTimeoutMs: number;
}

export const DEFAULT_MODEL_STEPS: ModelStepSettings = { rewriteTimeoutMs: 2_500, pickTimeoutMs: 4_000 };

export interface WriteRequest {
  readonly guruId: number;
  readonly guruName: string;
  readonly question: string;
  /** Chunks found by meaning (hybrid search), best first. */
  readonly related: readonly ChunkHit[];
  readonly draft: AnswerDraft;
  readonly instructions: string;
  readonly recollection: Recollection | undefined;
  /** The question in the documentation's vocabulary (ModelPipeline.reword), each searched beside it. */
  readonly rewrites?: readonly string[];
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
  readonly #steps: ModelStepSettings;

  constructor(chat: ChatModel, retriever: Retriever, memory: EndUserMemory, logger: Logger, steps: ModelStepSettings = DEFAULT_MODEL_STEPS) {
    this.#chat = chat;
    this.#retriever = retriever;
    this.#memory = memory;
    this.#logger = logger;
    this.#steps = steps;
  }

  /**
   * The question as the documentation would word it (up to 3 rewrites), to search beside it; none
   * when the step is off, or the model fails, answers what cannot be read, or takes too long.
   */
  async reword(guruName: string, question: string, signal: AbortSignal | undefined): Promise<string[]> {
    const rewrites = await this.#timed('rewording the question', this.#steps.rewriteTimeoutMs, signal, (stepSignal) =>
      documentationWording(this.#chat, guruName, question, stepSignal),
    );
    if (rewrites !== undefined) this.#logger.debug('question reworded for the search', { rewrites: JSON.stringify(rewrites) });
    return rewrites ?? [];
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
    const search = (text: string) => retriever.search(request.guruId, withSynonyms(parseQuery(text)), { limit: CANDIDATES });
    const lists = await Promise.all([request.question, ...(request.rewrites ?? [])].map(search));
    const hits = fuseRanked([...lists, request.related], (hit) => hit.chunkId);
    const picked =
      hits.length === 0
        ? undefined
        : await this.#timed('picking the passages', this.#steps.pickTimeoutMs, options.signal, (stepSignal) =>
            pickPassages(this.#chat, request.question, hits, stepSignal),
          );
    if (picked !== undefined) this.#logger.debug('passages picked for the answer', { picked: picked.map((hit) => hit.chunkId) });
    const sources = await selectContext(retriever, picked ?? hits);
    if (sources.length === 0 && images.length === 0) return { ...request.draft, streamed: false };
    return generateAnswer(this.#chat, { ...request, sources, images }, options, this.#logger);
  }

  /**
   * `step` given `timeoutMs` (undefined at once when that is 0: the step is off); undefined when it
   * fails, times out or its reply cannot be read (each logged with why). The caller's abort passes.
   */
  async #timed<T>(what: string, timeoutMs: number, signal: AbortSignal | undefined, step: (signal: AbortSignal) => Promise<T | undefined>): Promise<T | undefined> {
    if (timeoutMs <= 0) return undefined;
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const result = await step(signal ? AbortSignal.any([signal, timeout]) : timeout);
      if (result === undefined) this.#logger.warn(`${what}: the language model's reply could not be read; going on without it`);
      return result;
    } catch (error) {
      if (signal?.aborted) throw error;
      const why = timeout.aborted ? `no reply within ${timeoutMs} ms` : describeError(error);
      this.#logger.warn(`${what} failed; going on without it`, { error: why });
      return undefined;
    }
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
