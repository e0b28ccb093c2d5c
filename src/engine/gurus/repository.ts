import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../store/sql.js';
import { nextIdOf } from '../store/ids.js';

export interface GuruRow {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly date_created: string;
}

const KEY_PREFIX = 'guru_';

/** API keys carry 256 random bits, so one SHA-256 pass is enough to keep them safe at rest. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export const generateApiKey = (): string => KEY_PREFIX + randomBytes(32).toString('base64url');

const GURU_COLUMNS = 'id, slug, name, date_created';

export class GuruRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  list(): Promise<GuruRow[]> {
    return this.#sql.all(`SELECT ${GURU_COLUMNS} FROM gurus ORDER BY slug`);
  }

  find(slug: string): Promise<GuruRow | undefined> {
    return this.#sql.get(`SELECT ${GURU_COLUMNS} FROM gurus WHERE slug = ?`, [slug]);
  }

  /** Returns undefined when the slug is taken. */
  create(slug: string, name: string, now: string): Promise<GuruRow | undefined> {
    return this.#sql.get(
      `INSERT INTO gurus (id, slug, name, date_created) VALUES (${nextIdOf('gurus', this.#sql.dialect)}, ?, ?, ?)
       ON CONFLICT (slug) DO NOTHING RETURNING ${GURU_COLUMNS}`,
      [slug, name, now],
    );
  }

  /** Stores a new key's hash and returns the clear key, which is not kept anywhere. */
  async addKey(guruId: number, now: string): Promise<string> {
    const key = generateApiKey();
    await this.#sql.run('INSERT INTO api_keys (guru_id, key_hash, date_created) VALUES (?, ?, ?)', [guruId, hashApiKey(key), now]);
    return key;
  }

  findByKey(key: string): Promise<GuruRow | undefined> {
    return this.#sql.get(
      'SELECT g.id, g.slug, g.name, g.date_created FROM api_keys k JOIN gurus g ON g.id = k.guru_id WHERE k.key_hash = ?',
      [hashApiKey(key)],
    );
  }
}
