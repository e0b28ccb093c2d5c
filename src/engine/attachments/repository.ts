import { larger } from '../store/dialect.js';
import type { Sql } from '../store/sql.js';
import type { TextAttachmentKind } from './passages.js';

export interface StoredAttachment {
  readonly ordinal: number;
  readonly kind: TextAttachmentKind;
  readonly name: string;
  readonly text: string;
}

export interface NewAttachment extends StoredAttachment {
  readonly questionId: number;
  readonly bingeId: string;
  readonly now: string;
}

/** The attachments of a session's turns (table question_attachments) and the numbers they take (binges.attachments_numbered). */
export class AttachmentRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Takes `count` numbers of the session for new attachments, atomically (another question of the
   * session, in this process or another, gets others) and returns the first. A session not stored
   * yet (a new one, whose id nobody else knows) starts at 1.
   */
  async takeNumbers(bingeId: string, count: number): Promise<number> {
    const taken = await this.#sql.get<{ last: number }>(
      'UPDATE binges SET attachments_numbered = attachments_numbered + ? WHERE id = ? RETURNING attachments_numbered AS last',
      [count, bingeId],
    );
    return taken === undefined ? 1 : taken.last - count + 1;
  }

  /** Records that the session's numbers up to `last` are taken (for a session stored with its first turn). */
  async markTaken(bingeId: string, last: number): Promise<void> {
    await this.#sql.run(`UPDATE binges SET attachments_numbered = ${larger(this.#sql.dialect, 'attachments_numbered', '?')} WHERE id = ?`, [
      last,
      bingeId,
    ]);
  }

  /**
   * The attachments a follow-up searches: the session's latest `logs` log files and latest `pdfs`
   * PDFs (as many as one question may carry), in the order they were attached. They are indexed
   * again for every question (about 0.6 s for 5 MB of logs), so a long session with many files
   * costs a follow-up no more than its first question.
   */
  latestOfSession(bingeId: string, counts: { readonly logs: number; readonly pdfs: number }): Promise<StoredAttachment[]> {
    // Through the session's turns: a session deleted or erased has none left, whatever the binge row says.
    // The latest of each kind are chosen before any text is read: a long session's older files stay on disk.
    return this.#sql.all(
      `SELECT ordinal, kind, name, text FROM question_attachments WHERE id IN (
         SELECT id FROM (
           SELECT a.id, a.kind, row_number() OVER (PARTITION BY a.kind ORDER BY a.ordinal DESC) AS recency
           FROM question_attachments a JOIN questions q ON q.id = a.question_id WHERE q.binge_id = ?
         ) ranked WHERE recency <= CASE kind WHEN 'LOG' THEN ? WHEN 'PDF' THEN ? ELSE 0 END
       ) ORDER BY ordinal`,
      [bingeId, counts.logs, counts.pdfs],
    );
  }

  /** The session's attachment numbered `ordinal`, if the session is the guru's and still holds it. */
  one(bingeId: string, ordinal: number, guruId: number): Promise<StoredAttachment | undefined> {
    return this.#sql.get(
      `SELECT a.ordinal, a.kind, a.name, a.text FROM question_attachments a JOIN questions q ON q.id = a.question_id
       WHERE a.binge_id = ? AND a.ordinal = ? AND q.guru_id = ?`,
      [bingeId, ordinal, guruId],
    );
  }

  async insert(attachment: NewAttachment): Promise<void> {
    await this.#sql.run(
      'INSERT INTO question_attachments (question_id, binge_id, ordinal, kind, name, text, date_created) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [attachment.questionId, attachment.bingeId, attachment.ordinal, attachment.kind, attachment.name, attachment.text, attachment.now],
    );
  }
}
