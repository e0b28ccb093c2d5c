/**
 * A guru's credentials for Jira, Zendesk and Confluence, which their sources
 * are read with. Tokens are sealed at rest and never shown again.
 */
import type { GuruAdmin } from '../../core/assistant.js';
import { Errors } from '../../core/errors.js';
import { IntegrationInput, IntegrationKind, type Integration } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { timestamp, type EngineContext } from '../context.js';
import type { GuruRow, LocalGurus } from '../gurus/local-gurus.js';
import {
  IntegrationRepository,
  type IntegrationCredentials,
  type IntegrationKind as IntegrationType,
} from '../store/integrations.js';
import { SecretBox } from '../store/secrets.js';

export type { IntegrationType };

const INTEGRATION_TYPES: Record<IntegrationKind, IntegrationType> = { jira: 'JIRA', zendesk: 'ZENDESK', confluence: 'CONFLUENCE' };

export class LocalIntegrations implements Pick<GuruAdmin, 'setIntegration' | 'listIntegrations' | 'removeIntegration'> {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #integrations: IntegrationRepository;

  constructor(context: EngineContext, gurus: LocalGurus) {
    this.#context = context;
    this.#gurus = gurus;
    this.#integrations = new IntegrationRepository(context.sql, new SecretBox(context.settings.dataDir));
  }

  async setIntegration(slug: string, input: IntegrationInput): Promise<Integration> {
    const guru = await this.#gurus.find('admin', slug);
    const request = parseRequest(IntegrationInput, input, 'admin');
    const now = timestamp(this.#context);
    await this.#integrations.set(
      guru.id,
      { kind: INTEGRATION_TYPES[request.kind], baseUrl: request.base_url.replace(/\/+$/, ''), email: request.email ?? null, token: request.token },
      now,
    );
    return { kind: request.kind, base_url: request.base_url.replace(/\/+$/, ''), email: request.email ?? null, date_created: now };
  }

  async listIntegrations(slug: string): Promise<Integration[]> {
    const guru = await this.#gurus.find('admin', slug);
    return (await this.#integrations.list(guru.id)).map((item) => ({
      kind: item.kind.toLowerCase() as IntegrationKind,
      base_url: item.baseUrl,
      email: item.email,
      date_created: item.dateCreated,
    }));
  }

  async removeIntegration(slug: string, kind: IntegrationKind): Promise<boolean> {
    const guru = await this.#gurus.find('admin', slug);
    return this.#integrations.remove(guru.id, INTEGRATION_TYPES[parseRequest(IntegrationKind, kind, 'admin')]);
  }

  /** What the readers of the guru's sources of this kind sign in with, if set. */
  credentials(guruId: number, type: IntegrationType): Promise<IntegrationCredentials | undefined> {
    return this.#integrations.credentials(guruId, type);
  }

  /** Refuses, naming the integration (`name`), when the guru has none of this type. */
  async require(guru: GuruRow, type: IntegrationType, name: string): Promise<void> {
    if (!(await this.credentials(guru.id, type))) throw Errors.integrationMissing(name, guru.slug);
  }
}
