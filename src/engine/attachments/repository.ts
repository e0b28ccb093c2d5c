import type { Db } from '../store/database.js';
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

/** The attachments of a session's turns (table question_attachments). */
export class AttachmentRepository {
  readonly #ofSession;
  readonly #insert;

  constructor(db: Db) {
    // Through the session's turns: a session deleted or erased has none left, whatever the binge row says.
    this.#ofSession = db.prepare<[string], StoredAttachment>(
      `SELECT a.ordinal, a.kind, a.name, a.text FROM question_attachments a JOIN questions q ON q.id = a.question_id
       WHERE q.binge_id = ? ORDER BY a.ordinal`,
    );
    this.#insert = db.prepare<[number, string, number, string, string, string, string]>(
      'INSERT INTO question_attachments (question_id, binge_id, ordinal, kind, name, text, date_created) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
  }

  ofSession(bingeId: string): StoredAttachment[] {
    return this.#ofSession.all(bingeId);
  }

  insert(attachment: NewAttachment): void {
    this.#insert.run(attachment.questionId, attachment.bingeId, attachment.ordinal, attachment.kind, attachment.name, attachment.text, attachment.now);
  }
}
