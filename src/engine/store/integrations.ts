import type { Sql } from './sql.js';
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

const COLUMNS = 'kind, base_url, email, sealed_token, date_created';

export class IntegrationRepository {
  readonly #sql: Sql;
  readonly #secrets: SecretBox;

  constructor(sql: Sql, secrets: SecretBox) {
    this.#sql = sql;
    this.#secrets = secrets;
  }

  async set(guruId: number, credentials: IntegrationCredentials, now: string): Promise<void> {
    await this.#sql.run(
      `INSERT INTO integrations (guru_id, kind, base_url, email, sealed_token, date_created) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (guru_id, kind) DO UPDATE SET base_url = excluded.base_url, email = excluded.email,
         sealed_token = excluded.sealed_token, date_created = excluded.date_created`,
      [guruId, credentials.kind, credentials.baseUrl, credentials.email, this.#secrets.seal(credentials.token), now],
    );
  }

  async credentials(guruId: number, kind: IntegrationKind): Promise<IntegrationCredentials | undefined> {
    const row = await this.#sql.get<IntegrationRow>(`SELECT ${COLUMNS} FROM integrations WHERE guru_id = ? AND kind = ?`, [guruId, kind]);
    return row && { kind: row.kind, baseUrl: row.base_url, email: row.email, token: this.#secrets.open(row.sealed_token) };
  }

  async list(guruId: number): Promise<IntegrationSummary[]> {
    const rows = await this.#sql.all<IntegrationRow>(`SELECT ${COLUMNS} FROM integrations WHERE guru_id = ? ORDER BY kind`, [guruId]);
    return rows.map((row) => ({ kind: row.kind, baseUrl: row.base_url, email: row.email, dateCreated: row.date_created }));
  }

  /** Returns whether there was one to remove. */
  async remove(guruId: number, kind: IntegrationKind): Promise<boolean> {
    return (await this.#sql.run('DELETE FROM integrations WHERE guru_id = ? AND kind = ?', [guruId, kind])).changes > 0;
  }
}
