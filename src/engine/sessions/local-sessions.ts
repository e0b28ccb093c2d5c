/**
 * Sessions ("binges"): the conversations of a guru, their turns, listing and
 * deletion. Answers record their turns through this capability's API.
 */
import { randomUUID } from 'node:crypto';
import type { Sessions } from '../../core/assistant.js';
import { Errors } from '../../core/errors.js';
import {
  ListSessionsRequest,
  type DeletedSession,
  type EndUserData,
  type Reference,
  type SessionConversation,
  type SessionList,
  type SessionSummary,
  type Vote,
} from '../../core/schemas.js';
import { sessionUri } from '../../core/uris.js';
import { parseRequest } from '../../core/validate.js';
import { timestamp, type EngineContext } from '../context.js';
import type { GuruRow, LocalGurus } from '../gurus/local-gurus.js';
import { pageOf, type PageWindow, type Paged } from '../store/paging.js';
import type { Sql } from '../store/sql.js';
import { SessionRepository, type BingeRow, type NewQuestion, type QuestionRow, type VoteOutcome } from './repository.js';

export type { QuestionRow, VoteOutcome } from './repository.js';

/** The references a turn was answered with, as stored with it. */
export const referencesOf = (turn: QuestionRow): Reference[] => JSON.parse(turn.references_json) as Reference[];

const SESSION_PAGE_SIZE = 20;

/** Why a declined question was not answered: the engine declines only when the knowledge base holds nothing on it. */
const DECLINED_REASON = 'The knowledge base holds nothing that answers this question.';

type Bundle = EndUserData['data'];

/** What the sessions hold about one end user of a guru, one page of each collection. */
export interface EndUserHistory {
  readonly questions: Paged<Bundle['questions'][number]>;
  readonly rejectedQuestions: Paged<Bundle['rejected_questions'][number]>;
  readonly conversations: Paged<Bundle['conversations'][number]>;
}

/** What erasing an end user's sessions removed. */
export interface ErasedHistory {
  readonly questions: number;
  readonly rejectedQuestions: number;
  readonly conversations: number;
  /** Log files and PDFs attached to the erased questions. */
  readonly attachments: number;
}
const DAY_MS = 86_400_000;

/** A turn to record; the session and the time are the capability's to fill in. */
export type NewTurn = Omit<NewQuestion, 'bingeId' | 'now'>;

/** What is stored with a turn (a question's attachments), and the id a new session is to get. */
export interface TurnCompanion {
  readonly sessionId: string;
  /** Stores what goes with the turn through `tx`, the turn's transaction. */
  store(turn: QuestionRow, tx: Sql): Promise<void>;
}

export class LocalSessions implements Sessions {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #sessions: SessionRepository;

  constructor(context: EngineContext, gurus: LocalGurus) {
    this.#context = context;
    this.#gurus = gurus;
    this.#sessions = new SessionRepository(context.sql);
  }

  async listSessions(slug: string, input: ListSessionsRequest): Promise<SessionList> {
    const guru = await this.#gurus.find('list_sessions', slug);
    const request = parseRequest(ListSessionsRequest, input, 'list_sessions');
    const rows = await this.#sessions.summaries({
      guruId: guru.id,
      search: request.search_query.trim(),
      externalUserId: request.external_user_id,
      limit: SESSION_PAGE_SIZE + 1,
      offset: (request.page_num - 1) * SESSION_PAGE_SIZE,
    });
    const now = this.#context.clock();
    const startOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const list: SessionList = { today: [], last_week: [], older: [], has_more: rows.length > SESSION_PAGE_SIZE };
    for (const row of rows.slice(0, SESSION_PAGE_SIZE)) {
      const summary: SessionSummary = {
        id: row.id,
        last_used: row.last_used,
        guru_type_slug: guru.slug,
        guru_type_name: guru.name,
        root_question_name: row.root_question,
        root_question_slug: row.root_slug,
        root_question_link: sessionUri(guru.slug, row.id),
      };
      const lastUsed = Date.parse(row.last_used);
      if (lastUsed >= startOfToday) list.today.push(summary);
      else if (lastUsed >= startOfToday - 7 * DAY_MS) list.last_week.push(summary);
      else list.older.push(summary);
    }
    return list;
  }

  async getSession(slug: string, sessionId: string): Promise<SessionConversation> {
    const guru = await this.#gurus.find('get_session', slug);
    if (sessionId.trim() === '') throw Errors.invalidRequest('get_session');
    const binge = await this.#sessions.binge(sessionId);
    if (!binge || binge.deleted_at !== null) throw Errors.bingeNotFound();
    if (binge.guru_id !== guru.id) throw Errors.noBingeAccess();
    const turns = await this.#sessions.turns(binge.id);
    const slugOf = new Map(turns.map((turn) => [turn.id, turn.slug]));
    return {
      binge_id: binge.id,
      root_question_slug: turns[0]?.slug ?? '',
      date_created: binge.date_created,
      last_used: binge.last_used,
      conversation: turns.map((turn) => ({
        id: String(turn.id),
        slug: turn.slug,
        user_question: turn.user_question,
        question: turn.question,
        answer: turn.content,
        date_created: turn.date_created,
        date_updated: turn.date_updated,
        references: referencesOf(turn),
        trust_score: turn.trust_score,
        parent_slug: turn.parent_id === null ? null : (slugOf.get(turn.parent_id) ?? null),
        source: turn.source,
        user_vote: turn.user_vote,
        can_receive_feedback: turn.can_receive_feedback === 1,
      })),
    };
  }

  async deleteSession(slug: string, sessionId: string): Promise<DeletedSession> {
    const guru = await this.#gurus.find('delete_session', slug);
    if (sessionId.trim() === '') throw Errors.invalidRequest('delete_session');
    const binge = await this.#sessions.binge(sessionId);
    if (!binge) throw Errors.sessionNotFound();
    if (binge.guru_id !== guru.id) throw Errors.forbidden('delete_session');
    if (binge.deleted_at !== null) throw Errors.sessionAlreadyDeleted();
    await this.#sessions.delete(binge.id, timestamp(this.#context));
    this.#context.logger.debug('session deleted', { guru: guru.slug });
    return { msg: 'Session deleted successfully', session_id: binge.id };
  }

  // -------------------------------------------------------------------------
  // For follow-up examples

  /** The guru's session of this id, unless it was deleted. */
  async liveSession(guruId: number, sessionId: string): Promise<BingeRow | undefined> {
    const binge = await this.#sessions.binge(sessionId);
    return binge && binge.guru_id === guruId && binge.deleted_at === null ? binge : undefined;
  }

  /** The turns of a session, oldest first. */
  turns(sessionId: string): Promise<QuestionRow[]> {
    return this.#sessions.turns(sessionId);
  }

  // -------------------------------------------------------------------------
  // For votes

  /** The turn (answer) of the guru with this slug, in any live session (votes, follow-up examples). */
  turn(guruId: number, slug: string): Promise<QuestionRow | undefined> {
    return this.#sessions.turnBySlug(guruId, slug);
  }

  /** Records a turn's vote unless it has one; it then shows as the turn's `user_vote`. */
  recordVote(turnId: number, vote: Vote, feedback: string | null): Promise<VoteOutcome> {
    return this.#sessions.vote(turnId, vote, feedback, timestamp(this.#context));
  }

  // -------------------------------------------------------------------------
  // For the end-user data of a guru

  /** One page (`window`, per collection) of the end user's questions, declined questions and sessions. */
  async endUserHistory(guru: GuruRow, externalUserId: string, window: PageWindow): Promise<EndUserHistory> {
    const { limit, offset } = window;
    const questions = (declined: boolean) => this.#sessions.endUserQuestions(guru.id, externalUserId, declined, limit + 1, offset);
    const answered = pageOf(await questions(false), limit);
    const declined = pageOf(await questions(true), limit);
    const binges = pageOf(await this.#sessions.endUserBinges(guru.id, externalUserId, limit + 1, offset), limit);
    return {
      questions: {
        hasMore: answered.hasMore,
        items: answered.items.map((row) => ({
          slug: row.slug,
          question: row.question,
          user_question: row.user_question,
          content: row.content,
          source: row.source,
          date_created: row.date_created,
        })),
      },
      rejectedQuestions: {
        hasMore: declined.hasMore,
        items: declined.items.map((row) => ({
          slug: row.slug,
          question: row.question,
          user_question: row.user_question,
          date_created: row.date_created,
          reason: DECLINED_REASON,
        })),
      },
      conversations: {
        hasMore: binges.hasMore,
        items: binges.items.map((binge) => ({ id: binge.id, date_created: binge.date_created, last_used: binge.last_used })),
      },
    };
  }

  /** Deletes the end user's sessions in the guru with their turns, leaving tombstones with neither text nor user id. */
  async eraseEndUser(guru: GuruRow, externalUserId: string): Promise<ErasedHistory> {
    const erased = await this.#sessions.eraseEndUser(guru.id, externalUserId, timestamp(this.#context));
    return { questions: erased.questions, rejectedQuestions: erased.declined, conversations: erased.sessions, attachments: erased.attachments };
  }

  // -------------------------------------------------------------------------
  // For answers

  /** The live session of this guru that a question continues, or the refusal `ask` gives. */
  async continued(guru: GuruRow, sessionId: string, externalUserId: string | null): Promise<BingeRow> {
    const binge = await this.#sessions.binge(sessionId);
    if (!binge || binge.guru_id !== guru.id || binge.deleted_at !== null) throw Errors.sessionNotFoundForAsk(sessionId);
    if (externalUserId !== null && binge.external_user_id !== null && binge.external_user_id !== externalUserId) {
      throw Errors.externalUserMismatch();
    }
    return binge;
  }

  /** The latest stored answer to the same question, within a session and end user when given. */
  existingAnswer(guruId: number, question: string, sessionId: string | null, externalUserId: string | null): Promise<QuestionRow | undefined> {
    return this.#sessions.existingAnswer(guruId, question, sessionId, externalUserId);
  }

  lastTurn(sessionId: string): Promise<QuestionRow | undefined> {
    return this.#sessions.lastTurn(sessionId);
  }

  /**
   * Stores a turn in the session `sessionId`, or in a new session when it is undefined (with the
   * companion's `sessionId`, else a fresh one); the companion stores what goes with the turn in
   * the same transaction. While the writer thread commits a batch of sources, the turn waits for
   * the write lock without holding up other requests.
   */
  recordTurn(sessionId: string | undefined, turn: NewTurn, companion?: TurnCompanion): Promise<QuestionRow> {
    const now = timestamp(this.#context);
    const bingeId = sessionId ?? companion?.sessionId ?? randomUUID();
    return this.#context.sql.transaction(async (tx) => {
      const sessions = new SessionRepository(tx);
      if (sessionId === undefined) await sessions.openBinge(bingeId, turn.guruId, turn.externalUserId, now);
      const row = await sessions.addTurn({ ...turn, bingeId, now });
      await companion?.store(row, tx);
      return row;
    });
  }
}
