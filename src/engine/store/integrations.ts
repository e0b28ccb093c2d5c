import type { Db } from './database.js';
import type { SecretBox } from './secrets.js';

export type IntegrationKind = 'JIRA' | 'ZENDESK' | 'CONFLUENCE';

/** What a reader needs to reach a guru's Jira, Zendesk or Confluence. */
export interface IntegrationCredentials {
  readonly kind: IntegrationKind;
  readonly baseUrl: string;
  readonly email: string | null;
  readonly token: string;
}

/** An integration as shown to people: never with its token. */
export interface IntegrationSummary {
  readonly kind: IntegrationKind;
  readonly baseUrl: string;
  readonly email: string | null;
  readonly dateCreated: string;
}

interface IntegrationRow {
  readonly kind: IntegrationKind;
  readonly base_url: string;
  readonly email: string | null;
  readonly sealed_token: Buffer;
  readonly date_created: string;
}

export class IntegrationRepository {
  readonly #secrets: SecretBox;
  readonly #upsert;
  readonly #get;
  readonly #list;
  readonly #remove;

  constructor(db: Db, secrets: SecretBox) {
    this.#secrets = secrets;
    this.#upsert = db.prepare<[number, IntegrationKind, string, string | null, Buffer, string]>(
      `INSERT INTO integrations (guru_id, kind, base_url, email, sealed_token, date_created) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (guru_id, kind) DO UPDATE SET base_url = excluded.base_url, email = excluded.email,
         sealed_token = excluded.sealed_token, date_created = excluded.date_created`,
    );
    this.#get = db.prepare<[number, IntegrationKind], IntegrationRow>(
      'SELECT kind, base_url, email, sealed_token, date_created FROM integrations WHERE guru_id = ? AND kind = ?',
    );
    this.#list = db.prepare<[number], IntegrationRow>(
      'SELECT kind, base_url, email, sealed_token, date_created FROM integrations WHERE guru_id = ? ORDER BY kind',
    );
    this.#remove = db.prepare<[number, IntegrationKind]>('DELETE FROM integrations WHERE guru_id = ? AND kind = ?');
  }

  set(guruId: number, credentials: IntegrationCredentials, now: string): void {
    this.#upsert.run(guruId, credentials.kind, credentials.baseUrl, credentials.email, this.#secrets.seal(credentials.token), now);
  }

  credentials(guruId: number, kind: IntegrationKind): IntegrationCredentials | undefined {
    const row = this.#get.get(guruId, kind);
    return row && { kind: row.kind, baseUrl: row.base_url, email: row.email, token: this.#secrets.open(row.sealed_token) };
  }

  list(guruId: number): IntegrationSummary[] {
    return this.#list.all(guruId).map((row) => ({ kind: row.kind, baseUrl: row.base_url, email: row.email, dateCreated: row.date_created }));
  }

  /** Returns whether there was one to remove. */
  remove(guruId: number, kind: IntegrationKind): boolean {
    return this.#remove.run(guruId, kind).changes > 0;
  }
}
