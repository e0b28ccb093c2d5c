import type { Reference, Vote } from '../../core/schemas.js';
import { likeIgnoringCase } from '../store/dialect.js';
import type { Sql } from '../store/sql.js';

export interface BingeRow {
  readonly id: string;
  readonly guru_id: number;
  readonly external_user_id: string | null;
  readonly date_created: string;
  readonly last_used: string;
  readonly deleted_at: string | null;
}

export interface QuestionRow {
  readonly id: number;
  readonly guru_id: number;
  readonly binge_id: string;
  readonly parent_id: number | null;
  readonly slug: string;
  readonly user_question: string;
  readonly question: string;
  readonly content: string;
  readonly trust_score: number;
  readonly references_json: string;
  readonly can_receive_feedback: 0 | 1;
  readonly attachment_note: string | null;
  readonly source: string;
  readonly external_user_id: string | null;
  readonly user_vote: Vote | null;
  readonly date_created: string;
  readonly date_updated: string;
}

export interface NewQuestion {
  readonly guruId: number;
  readonly bingeId: string;
  readonly parentId: number | null;
  readonly slug: string;
  readonly userQuestion: string;
  readonly question: string;
  readonly content: string;
  readonly trustScore: number;
  readonly references: readonly Reference[];
  readonly canReceiveFeedback: boolean;
  readonly attachmentNote: string | null;
  readonly source: string;
  readonly externalUserId: string | null;
  readonly now: string;
}

export type VoteOutcome = { readonly recorded: true } | { readonly recorded: false; readonly standing: Vote };

/** A listed session: the binge and its root question. */
export interface SessionSummaryRow {
  readonly id: string;
  readonly last_used: string;
  readonly root_slug: string;
  readonly root_question: string;
}

export interface SessionFilter {
  readonly guruId: number;
  readonly search: string;
  readonly externalUserId: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

const QUESTION_COLUMNS = `id, guru_id, binge_id, parent_id, slug, user_question, question, content, trust_score,
  references_json, can_receive_feedback, attachment_note, source, external_user_id, user_vote, date_created, date_updated`;

/** Escapes LIKE wildcards so that user text matches literally. */
const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class SessionRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  binge(id: string): Promise<BingeRow | undefined> {
    return this.#sql.get('SELECT * FROM binges WHERE id = ?', [id]);
  }

  async openBinge(id: string, guruId: number, externalUserId: string | null, now: string): Promise<void> {
    await this.#sql.run('INSERT INTO binges (id, guru_id, external_user_id, date_created, last_used) VALUES (?, ?, ?, ?, ?)', [
      id,
      guruId,
      externalUserId,
      now,
      now,
    ]);
  }

  /** Records a turn and moves the session's `last_used`; adopts the end user if it had none. */
  addTurn(turn: NewQuestion): Promise<QuestionRow> {
    return this.#sql.transaction(async (tx) => {
      await tx.run('UPDATE binges SET last_used = ?, external_user_id = coalesce(external_user_id, ?) WHERE id = ?', [
        turn.now,
        turn.externalUserId,
        turn.bingeId,
      ]);
      const row = await tx.get<QuestionRow>(
        `INSERT INTO questions (guru_id, binge_id, parent_id, slug, user_question, question, content, trust_score,
           references_json, can_receive_feedback, attachment_note, source, external_user_id, date_created, date_updated)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${QUESTION_COLUMNS}`,
        [
          turn.guruId,
          turn.bingeId,
          turn.parentId,
          turn.slug,
          turn.userQuestion,
          turn.question,
          turn.content,
          turn.trustScore,
          JSON.stringify(turn.references),
          turn.canReceiveFeedback ? 1 : 0,
          turn.attachmentNote,
          turn.source,
          turn.externalUserId,
          turn.now,
          turn.now,
        ],
      );
      if (!row) throw new Error('insert returned no row');
      return row;
    });
  }

  turns(bingeId: string): Promise<QuestionRow[]> {
    return this.#sql.all(`SELECT ${QUESTION_COLUMNS} FROM questions WHERE binge_id = ? ORDER BY id`, [bingeId]);
  }

  lastTurn(bingeId: string): Promise<QuestionRow | undefined> {
    return this.#sql.get(`SELECT ${QUESTION_COLUMNS} FROM questions WHERE binge_id = ? ORDER BY id DESC LIMIT 1`, [bingeId]);
  }

  /**
   * The latest stored answer to the same question, within a session and end user when given.
   * In a session the question may also be the one typed: a follow-up is stored rewritten.
   */
  existingAnswer(guruId: number, question: string, bingeId: string | null, externalUserId: string | null): Promise<QuestionRow | undefined> {
    // Each parameter is compared with a column before `IS NULL`: PostgreSQL takes its type from there.
    return this.#sql.get(
      `SELECT ${QUESTION_COLUMNS} FROM questions
       WHERE guru_id = @guruId
         AND (question = @question OR (binge_id = @bingeId AND user_question = @question))
         AND (binge_id = @bingeId OR @bingeId IS NULL) AND (external_user_id = @externalUserId OR @externalUserId IS NULL)
       ORDER BY id DESC LIMIT 1`,
      { guruId, question, bingeId, externalUserId },
    );
  }

  /** The turn of a guru with this slug. */
  turnBySlug(guruId: number, slug: string): Promise<QuestionRow | undefined> {
    return this.#sql.get(`SELECT ${QUESTION_COLUMNS} FROM questions WHERE guru_id = ? AND slug = ?`, [guruId, slug]);
  }

  /**
   * Records the turn's first vote; the vote already standing (and nothing changed) when it had
   * one. In a transaction: it waits for the write lock without holding up other requests.
   */
  vote(questionId: number, vote: Vote, feedback: string | null, now: string): Promise<VoteOutcome> {
    return this.#sql.transaction<VoteOutcome>(async (tx) => {
      // Only the first vote is taken: the condition makes a race between two votes end with one of them.
      const { changes } = await tx.run('UPDATE questions SET user_vote = ?, vote_feedback = ?, voted_at = ? WHERE id = ? AND user_vote IS NULL', [
        vote,
        feedback,
        now,
        questionId,
      ]);
      if (changes === 1) return { recorded: true };
      const standing = (await tx.get<{ user_vote: Vote | null }>('SELECT user_vote FROM questions WHERE id = ?', [questionId]))?.user_vote;
      if (!standing) throw new Error(`question ${questionId} is gone`);
      return { recorded: false, standing };
    });
  }

  /**
   * Deletes a session's turns and leaves a tombstone, so that a second delete
   * can say the session is already deleted while no conversation text is kept.
   */
  async delete(bingeId: string, now: string): Promise<void> {
    await this.#sql.transaction(async (tx) => {
      await tx.run('DELETE FROM questions WHERE binge_id = ?', [bingeId]);
      await tx.run('UPDATE binges SET deleted_at = ? WHERE id = ?', [now, bingeId]);
    });
  }

  /**
   * The end user's questions in the guru's live sessions, oldest first: the
   * answered ones, or those the guru declined (no usable context, DESIGN.md).
   * Oldest first keeps pages stable while new questions come in.
   */
  endUserQuestions(guruId: number, externalUserId: string, declined: boolean, limit: number, offset: number): Promise<QuestionRow[]> {
    return this.#sql.all(
      `SELECT ${QUESTION_COLUMNS.replace(/(\w+)/g, 'q.$1')} FROM questions q JOIN binges b ON b.id = q.binge_id
       WHERE b.guru_id = ? AND b.external_user_id = ? AND b.deleted_at IS NULL AND q.can_receive_feedback = ?
       ORDER BY q.id LIMIT ? OFFSET ?`,
      [guruId, externalUserId, declined ? 0 : 1, limit, offset],
    );
  }

  /** The end user's live sessions in the guru, oldest first. */
  endUserBinges(guruId: number, externalUserId: string, limit: number, offset: number): Promise<BingeRow[]> {
    // Sessions opened in the same millisecond come in the order they were stored: SQLite's rowid.
    // PostgreSQL has no rowid (ids are random): there, the order their first questions were stored.
    const stored = this.#sql.dialect === 'sqlite' ? 'rowid' : '(SELECT min(q.id) FROM questions q WHERE q.binge_id = binges.id), id';
    return this.#sql.all(
      `SELECT * FROM binges WHERE guru_id = ? AND external_user_id = ? AND deleted_at IS NULL
       ORDER BY date_created, ${stored} LIMIT ? OFFSET ?`,
      [guruId, externalUserId, limit, offset],
    );
  }

  /**
   * Deletes every turn of the end user's sessions in the guru and turns the
   * sessions into tombstones that keep neither text nor the end user's id.
   */
  eraseEndUser(guruId: number, externalUserId: string, now: string): Promise<{ questions: number; declined: number; attachments: number; sessions: number }> {
    return this.#sql.transaction(async (tx) => {
      const mine = 'SELECT id FROM binges WHERE guru_id = @guruId AND external_user_id = @externalUserId';
      const params = { guruId, externalUserId };
      const counts = (await tx.get<{ questions: number; declined: number }>(
        `SELECT coalesce(sum(CASE WHEN can_receive_feedback = 1 THEN 1 ELSE 0 END), 0) AS questions,
           coalesce(sum(CASE WHEN can_receive_feedback = 0 THEN 1 ELSE 0 END), 0) AS declined
         FROM questions WHERE binge_id IN (${mine})`,
        params,
      )) ?? { questions: 0, declined: 0 };
      // Attachments go with their questions (ON DELETE CASCADE); counted first.
      const attachments =
        (await tx.get<{ n: number }>(
          `SELECT count(*) AS n FROM question_attachments WHERE question_id IN (SELECT id FROM questions WHERE binge_id IN (${mine}))`,
          params,
        ))?.n ?? 0;
      await tx.run(`DELETE FROM questions WHERE binge_id IN (${mine})`, params);
      const { changes: sessions } = await tx.run(
        'UPDATE binges SET deleted_at = @now WHERE guru_id = @guruId AND external_user_id = @externalUserId AND deleted_at IS NULL',
        { ...params, now },
      );
      await tx.run('UPDATE binges SET external_user_id = NULL WHERE guru_id = @guruId AND external_user_id = @externalUserId', params);
      return { ...counts, attachments, sessions };
    });
  }

  /** Live sessions, most recently used first, with their root question. */
  summaries(filter: SessionFilter): Promise<SessionSummaryRow[]> {
    const conditions = ['b.guru_id = @guruId', 'b.deleted_at IS NULL'];
    if (filter.externalUserId !== undefined) conditions.push('b.external_user_id = @externalUserId');
    if (filter.search !== '') {
      // Ignoring ASCII case on both stores, as SQLite's LIKE does.
      const like = `${likeIgnoringCase(this.#sql.dialect)} @pattern ESCAPE '\\'`;
      conditions.push(`(b.id ${like} OR EXISTS (
        SELECT 1 FROM questions q WHERE q.binge_id = b.id
          AND (q.question ${like} OR q.user_question ${like} OR q.slug ${like})))`);
    }
    const statement = `
      SELECT b.id, b.last_used, r.slug AS root_slug, r.question AS root_question
      FROM binges b
      JOIN questions r ON r.id = (SELECT min(id) FROM questions WHERE binge_id = b.id)
      WHERE ${conditions.join(' AND ')}
      ORDER BY b.last_used DESC, b.id
      LIMIT @limit OFFSET @offset`;
    return this.#sql.all(statement, {
      guruId: filter.guruId,
      externalUserId: filter.externalUserId,
      pattern: likePattern(filter.search),
      limit: filter.limit,
      offset: filter.offset,
    });
  }
}
