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
    this.#gurus = new GuruRepository(context.sql);
    this.#settings = new GuruSettingsRepository(context.sql);
    this.#ceiling = attachmentCeiling(context.settings.attachmentCeiling);
  }

  /** The guru named by `slug`, or the refusal `op` gives for an unknown guru. */
  async find(op: Operation, slug: string): Promise<GuruRow> {
    const guru = await this.#gurus.find(slug);
    if (!guru) throw Errors.guruNotFound(op, slug);
    return guru;
  }

  /** The settings other capabilities follow (model, speech provider, attachment limits). */
  async settingsOf(guru: GuruRow): Promise<GuruSettings> {
    return withinCeiling(await this.#settings.settings(guru.id), this.#ceiling);
  }

  async guruSettings(slug: string): Promise<GuruSettings> {
    return this.settingsOf(await this.find('admin', slug));
  }

  async updateGuruSettings(slug: string, raw: GuruSettingsPatch): Promise<GuruSettings> {
    const guru = await this.find('admin', slug);
    const patch = parseRequest(GuruSettingsPatch, raw, 'admin');
    const over = overCeiling(patch, this.#ceiling);
    if (over !== undefined) throw Errors.overAttachmentCeiling(over);
    const now = timestamp(this.#context);
    const updated = await this.#context.sql.transaction((tx) => new GuruSettingsRepository(tx).update(guru.id, patch, now));
    return withinCeiling(updated, this.#ceiling);
  }

  async listGurus(): Promise<Guru[]> {
    return (await this.#gurus.list()).map(({ slug, name, date_created }) => ({ slug, name, date_created }));
  }

  async createGuru(input: CreateGuruRequest): Promise<CreatedGuru> {
    const parsed = CreateGuruRequest.safeParse(input);
    if (!parsed.success) {
      throw Errors.invalidRequest('admin', `slug ${JSON.stringify(input.slug)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
    const request = parsed.data;
    const now = timestamp(this.#context);
    return this.#context.sql.transaction(async (tx) => {
      const gurus = new GuruRepository(tx);
      const guru = await gurus.create(request.slug, request.name ?? request.slug, now);
      if (!guru) throw Errors.guruExists(request.slug);
      return { slug: guru.slug, name: guru.name, api_key: await gurus.addKey(guru.id, now) };
    });
  }

  async createApiKey(slug: string): Promise<CreatedApiKey> {
    const guru = await this.find('admin', slug);
    return { slug: guru.slug, api_key: await this.#gurus.addKey(guru.id, timestamp(this.#context)) };
  }

  async authenticate(apiKey: string): Promise<string | undefined> {
    return (await this.#gurus.findByKey(apiKey))?.slug;
  }
}
