import type { Db } from '../store/database.js';

/** The stored follow-up examples of answers. */
export class FollowUpRepository {
  readonly #stored;
  readonly #insert;

  constructor(db: Db) {
    this.#stored = db.prepare<[number], { examples_json: string }>('SELECT examples_json FROM follow_up_examples WHERE question_id = ?');
    this.#insert = db.prepare<[number, string, string]>(
      'INSERT INTO follow_up_examples (question_id, examples_json, date_created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    );
  }

  stored(questionId: number): string[] | undefined {
    const row = this.#stored.get(questionId);
    return row && (JSON.parse(row.examples_json) as string[]);
  }

  /** Stores the examples of an answer unless it has some already; says whether these were stored. */
  store(questionId: number, examples: readonly string[], now: string): boolean {
    return this.#insert.run(questionId, JSON.stringify(examples), now).changes === 1;
  }
}
