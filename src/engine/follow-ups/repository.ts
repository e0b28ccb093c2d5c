import type { Sql } from '../store/sql.js';

/** The stored follow-up examples of answers. */
export class FollowUpRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async stored(questionId: number): Promise<string[] | undefined> {
    const row = await this.#sql.get<{ examples_json: string }>('SELECT examples_json FROM follow_up_examples WHERE question_id = ?', [questionId]);
    return row && (JSON.parse(row.examples_json) as string[]);
  }

  /** Stores the examples of an answer unless it has some already; says whether these were stored. */
  async store(questionId: number, examples: readonly string[], now: string): Promise<boolean> {
    const { changes } = await this.#sql.run(
      'INSERT INTO follow_up_examples (question_id, examples_json, date_created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      [questionId, JSON.stringify(examples), now],
    );
    return changes === 1;
  }
}
