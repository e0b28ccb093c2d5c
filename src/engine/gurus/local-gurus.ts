/**
 * Gurus and their API keys. Every other capability looks a guru up here, by
 * slug, and gets the not-found refusal of its own operation.
 */
import type { GuruAdmin } from '../../core/assistant.js';
import { Errors, type Operation } from '../../core/errors.js';
import { CreateGuruRequest, GuruSettingsPatch, type CreatedApiKey, type CreatedGuru, type Guru, type GuruSettings } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { timestamp, type EngineContext } from '../context.js';
import { GuruRepository, type GuruRow } from './repository.js';
import { attachmentCeiling, GuruSettingsRepository, overCeiling, withinCeiling } from './settings.js';

export type { GuruRow } from './repository.js';

export class LocalGurus
  implements Pick<GuruAdmin, 'listGurus' | 'createGuru' | 'createApiKey' | 'authenticate' | 'guruSettings' | 'updateGuruSettings'>
{
  readonly #context: EngineContext;
  readonly #gurus: GuruRepository;
  readonly #settings: GuruSettingsRepository;
  readonly #ceiling: GuruSettings['attachment_limits'];

  constructor(context: EngineContext) {
    this.#context = context;
    this.#gurus = new GuruRepository(context.db);
    this.#settings = new GuruSettingsRepository(context.db);
    this.#ceiling = attachmentCeiling(context.settings.attachmentCeiling);
  }

  /** The guru named by `slug`, or the refusal `op` gives for an unknown guru. */
  find(op: Operation, slug: string): GuruRow {
    const guru = this.#gurus.find(slug);
    if (!guru) throw Errors.guruNotFound(op, slug);
    return guru;
  }

  /** The settings other capabilities follow (model, speech provider, attachment limits). */
  settingsOf(guru: GuruRow): GuruSettings {
    return withinCeiling(this.#settings.settings(guru.id), this.#ceiling);
  }

  async guruSettings(slug: string): Promise<GuruSettings> {
    return this.settingsOf(this.find('admin', slug));
  }

  async updateGuruSettings(slug: string, raw: GuruSettingsPatch): Promise<GuruSettings> {
    const guru = this.find('admin', slug);
    const patch = parseRequest(GuruSettingsPatch, raw, 'admin');
    const over = overCeiling(patch, this.#ceiling);
    if (over !== undefined) throw Errors.overAttachmentCeiling(over);
    const now = timestamp(this.#context);
    const updated = this.#context.db.transaction(() => this.#settings.update(guru.id, patch, now)).immediate();
    return withinCeiling(updated, this.#ceiling);
  }

  async listGurus(): Promise<Guru[]> {
    return this.#gurus.list().map(({ slug, name, date_created }) => ({ slug, name, date_created }));
  }

  async createGuru(input: CreateGuruRequest): Promise<CreatedGuru> {
    const parsed = CreateGuruRequest.safeParse(input);
    if (!parsed.success) {
      throw Errors.invalidRequest('admin', `slug ${JSON.stringify(input.slug)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
    const request = parsed.data;
    const now = timestamp(this.#context);
    return this.#context.db
      .transaction(() => {
        const guru = this.#gurus.create(request.slug, request.name ?? request.slug, now);
        if (!guru) throw Errors.guruExists(request.slug);
        return { slug: guru.slug, name: guru.name, api_key: this.#gurus.addKey(guru.id, now) };
      })
      .immediate();
  }

  async createApiKey(slug: string): Promise<CreatedApiKey> {
    const guru = this.find('admin', slug);
    return { slug: guru.slug, api_key: this.#gurus.addKey(guru.id, timestamp(this.#context)) };
  }

  async authenticate(apiKey: string): Promise<string | undefined> {
    return this.#gurus.findByKey(apiKey)?.slug;
  }
}
