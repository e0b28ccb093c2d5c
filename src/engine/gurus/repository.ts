import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store/database.js';
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

export class GuruRepository {
  readonly #list;
  readonly #bySlug;
  readonly #insert;
  readonly #insertKey;
  readonly #byKeyHash;

  constructor(db: Db) {
    this.#list = db.prepare<[], GuruRow>('SELECT id, slug, name, date_created FROM gurus ORDER BY slug');
    this.#bySlug = db.prepare<[string], GuruRow>('SELECT id, slug, name, date_created FROM gurus WHERE slug = ?');
    this.#insert = db.prepare<[string, string, string], GuruRow>(
      `INSERT INTO gurus (id, slug, name, date_created) VALUES (${nextIdOf('gurus')}, ?, ?, ?) RETURNING id, slug, name, date_created`,
    );
    this.#insertKey = db.prepare<[number, string, string]>(
      'INSERT INTO api_keys (guru_id, key_hash, date_created) VALUES (?, ?, ?)',
    );
    this.#byKeyHash = db.prepare<[string], GuruRow>(
      `SELECT g.id, g.slug, g.name, g.date_created FROM api_keys k JOIN gurus g ON g.id = k.guru_id WHERE k.key_hash = ?`,
    );
  }

  list(): GuruRow[] {
    return this.#list.all();
  }

  find(slug: string): GuruRow | undefined {
    return this.#bySlug.get(slug);
  }

  /** Returns undefined when the slug is taken. */
  create(slug: string, name: string, now: string): GuruRow | undefined {
    if (this.find(slug)) return undefined;
    return this.#insert.get(slug, name, now);
  }

  /** Stores a new key's hash and returns the clear key, which is not kept anywhere. */
  addKey(guruId: number, now: string): string {
    const key = generateApiKey();
    this.#insertKey.run(guruId, hashApiKey(key), now);
    return key;
  }

  findByKey(key: string): GuruRow | undefined {
    return this.#byKeyHash.get(hashApiKey(key));
  }
}
