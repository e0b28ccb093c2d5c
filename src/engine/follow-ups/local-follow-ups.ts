/**
 * Follow-up examples: the questions a user would plausibly ask after an
 * answer, made on the first request and stored with the answer, so that later
 * requests get the same ones (`cached: true`). With a language model it
 * writes them (from-model.ts); without one, or when it fails, they come from
 * the knowledge around the cited passages (from-knowledge.ts).
 */
import type { FollowUps } from '../../core/assistant.js';
import { Errors, isGuruError } from '../../core/errors.js';
import { FollowUpRequest, type FollowUpResponse } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { describeError } from '../../log.js';
import type { ChatModel } from '../../providers/chat.js';
import { normalizeQuestion } from '../answer/local-answering.js';
import { timestamp, type EngineContext } from '../context.js';
import type { GuruRow, LocalGurus } from '../gurus/local-gurus.js';
import type { LocalSearch } from '../search/local-search.js';
import { referencesOf, type LocalSessions, type QuestionRow } from '../sessions/local-sessions.js';
import { suggestFromKnowledge, type AnsweredTurn } from './from-knowledge.js';
import { suggestFromModel } from './from-model.js';
import { FollowUpRepository } from './repository.js';

export class LocalFollowUps implements FollowUps {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #search: LocalSearch;
  readonly #sessions: LocalSessions;
  readonly #examples: FollowUpRepository;
  readonly #chat: ChatModel | undefined;

  constructor(context: EngineContext, gurus: LocalGurus, search: LocalSearch, sessions: LocalSessions, chat?: ChatModel) {
    this.#context = context;
    this.#chat = chat;
    this.#gurus = gurus;
    this.#search = search;
    this.#sessions = sessions;
    this.#examples = new FollowUpRepository(context.sql);
  }

  async followUpExamples(slug: string, raw: FollowUpRequest): Promise<FollowUpResponse> {
    const guru = await this.#gurus.find('follow_up', slug);
    const request = parseRequest(FollowUpRequest, raw, 'follow_up');
    if (request.binge_id !== undefined && (await this.#sessions.liveSession(guru.id, request.binge_id)) === undefined) {
      throw Errors.bingeDoesNotExist();
    }
    const turn = await this.#turnOf(guru.id, request);
    if (turn === undefined) throw Errors.questionDoesNotExist();

    const stored = await this.#examples.stored(turn.id);
    if (stored !== undefined) return { follow_up_examples: stored, question_slug: turn.slug, cached: true };
    let made: string[];
    try {
      made = await this.#make(guru, turn);
    } catch (error) {
      if (isGuruError(error)) throw error;
      this.#context.logger.error('follow-up examples failed', { error: describeError(error) });
      throw Errors.followUpFailed();
    }
    // Another request may have stored its own meanwhile: then those are the ones.
    if (await this.#examples.store(turn.id, made, timestamp(this.#context))) {
      return { follow_up_examples: made, question_slug: turn.slug, cached: false };
    }
    return { follow_up_examples: (await this.#examples.stored(turn.id)) ?? made, question_slug: turn.slug, cached: true };
  }

  /** The answer the request names: by slug, else the latest with that question; within the session when one is given. */
  async #turnOf(guruId: number, request: FollowUpRequest): Promise<QuestionRow | undefined> {
    const session = request.binge_id ?? null;
    if (request.question_slug !== undefined) {
      const turn = await this.#sessions.turn(guruId, request.question_slug);
      return turn && (session === null || turn.binge_id === session) ? turn : undefined;
    }
    return this.#sessions.existingAnswer(guruId, normalizeQuestion(request.question ?? ''), session, null);
  }

  /** The examples for an answer, from its session up to and including it. */
  async #make(guru: GuruRow, turn: QuestionRow): Promise<string[]> {
    const turns = await this.#sessions.turns(turn.binge_id);
    const upTo = turns.slice(0, turns.findIndex((earlier) => earlier.id === turn.id) + 1).map(answeredTurn);
    const generated = (await this.#gurus.settingsOf(guru)).use_model ? await this.#fromModel(guru.id, answeredTurn(turn), upTo) : undefined;
    return generated ?? suggestFromKnowledge(this.#search.retriever, guru.id, answeredTurn(turn), upTo);
  }

  /** Undefined without a model, for an answer that cited nothing, and when the model fails (logged). */
  async #fromModel(guruId: number, turn: AnsweredTurn, session: readonly AnsweredTurn[]): Promise<string[] | undefined> {
    if (this.#chat === undefined || turn.references.length === 0) return undefined;
    try {
      return await suggestFromModel(this.#chat, this.#search.retriever, guruId, turn, session);
    } catch (error) {
      this.#context.logger.warn('follow-up examples from the language model failed; built from the knowledge', { error: describeError(error) });
      return undefined;
    }
  }
}

const answeredTurn = (row: QuestionRow): AnsweredTurn => ({
  question: row.question,
  content: row.content,
  references: referencesOf(row),
});
