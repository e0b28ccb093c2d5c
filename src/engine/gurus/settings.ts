/**
 * A guru's settings. Only the fields the operator set are stored, so a
 * default changed in a later release reaches every guru that kept it.
 */
import { GuruSettingsPatch, type AttachmentKind, type GuruSettings } from '../../core/schemas.js';
import type { Sql } from '../store/sql.js';

const MB = 1_000_000;

/** DESIGN.md: 5 images of 5 MB, 5 log files of 1 MB, 3 PDFs of 10 MB; no model instructions; the model used when configured. */
export const DEFAULT_GURU_SETTINGS: GuruSettings = Object.freeze({
  model_instructions: '',
  use_model: true,
  speech_provider: false,
  attachment_limits: Object.freeze({
    images: Object.freeze({ count: 5, max_bytes: 5 * MB }),
    log_files: Object.freeze({ count: 5, max_bytes: 1 * MB }),
    pdf_files: Object.freeze({ count: 3, max_bytes: 10 * MB }),
  }),
});

type AttachmentLimits = GuruSettings['attachment_limits'];
const KINDS: readonly AttachmentKind[] = ['images', 'log_files', 'pdf_files'];

/**
 * The most any guru's attachment limits may be: the defaults, with the kinds the operator's
 * ceiling names (GURU_ATTACHMENT_CEILING) laid over them. A key holder cannot raise the body cap
 * of asks (askBodyCap) past what the operator allowed.
 */
export function attachmentCeiling(operator: Partial<AttachmentLimits> | undefined): AttachmentLimits {
  const defaults = DEFAULT_GURU_SETTINGS.attachment_limits;
  return {
    images: operator?.images ?? defaults.images,
    log_files: operator?.log_files ?? defaults.log_files,
    pdf_files: operator?.pdf_files ?? defaults.pdf_files,
  };
}

/** `settings` with each attachment limit taken at most at the ceiling (stored before the ceiling was lowered). */
export function withinCeiling(settings: GuruSettings, ceiling: AttachmentLimits): GuruSettings {
  const limits = settings.attachment_limits;
  const clamp = (kind: AttachmentKind) => ({
    count: Math.min(limits[kind].count, ceiling[kind].count),
    max_bytes: Math.min(limits[kind].max_bytes, ceiling[kind].max_bytes),
  });
  return { ...settings, attachment_limits: { images: clamp('images'), log_files: clamp('log_files'), pdf_files: clamp('pdf_files') } };
}

/** What of the patch asks for more than the ceiling allows, in words; undefined when nothing does. */
export function overCeiling(patch: GuruSettingsPatch, ceiling: AttachmentLimits): string | undefined {
  for (const kind of KINDS) {
    const asked = patch.attachment_limits?.[kind];
    for (const field of ['count', 'max_bytes'] as const) {
      const value = asked?.[field];
      if (value !== undefined && value > ceiling[kind][field]) {
        return `attachment_limits.${kind}.${field} must be at most ${ceiling[kind][field]} on this server (its operator's ceiling), not ${value}`;
      }
    }
  }
  return undefined;
}

/** `base` with the patch's fields laid over it (attachment limits field by field). */
export function applySettings(base: GuruSettings, patch: GuruSettingsPatch): GuruSettings {
  const limits = base.attachment_limits;
  const patched = patch.attachment_limits ?? {};
  return {
    model_instructions: patch.model_instructions ?? base.model_instructions,
    use_model: patch.use_model ?? base.use_model,
    speech_provider: patch.speech_provider ?? base.speech_provider,
    attachment_limits: {
      images: { ...limits.images, ...patched.images },
      log_files: { ...limits.log_files, ...patched.log_files },
      pdf_files: { ...limits.pdf_files, ...patched.pdf_files },
    },
  };
}

/** The stored patch with a new one laid over it: what the operator has set so far. */
function mergedPatch(stored: GuruSettingsPatch, patch: GuruSettingsPatch): GuruSettingsPatch {
  const limits = { ...stored.attachment_limits };
  for (const kind of ['images', 'log_files', 'pdf_files'] as const) {
    const changed = patch.attachment_limits?.[kind];
    if (changed) limits[kind] = { ...limits[kind], ...changed };
  }
  const merged: GuruSettingsPatch = { ...stored, ...patch };
  return Object.keys(limits).length > 0 ? { ...merged, attachment_limits: limits } : merged;
}

export class GuruSettingsRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async settings(guruId: number): Promise<GuruSettings> {
    return applySettings(DEFAULT_GURU_SETTINGS, await this.#stored(guruId));
  }

  /** Stores the patch over what was set before; call inside a transaction with the read. */
  async update(guruId: number, patch: GuruSettingsPatch, now: string): Promise<GuruSettings> {
    const stored = mergedPatch(await this.#stored(guruId), patch);
    await this.#sql.run(
      `INSERT INTO guru_settings (guru_id, settings_json, date_updated) VALUES (?, ?, ?)
       ON CONFLICT (guru_id) DO UPDATE SET settings_json = excluded.settings_json, date_updated = excluded.date_updated`,
      [guruId, JSON.stringify(stored), now],
    );
    return applySettings(DEFAULT_GURU_SETTINGS, stored);
  }

  async #stored(guruId: number): Promise<GuruSettingsPatch> {
    const row = await this.#sql.get<{ settings_json: string }>('SELECT settings_json FROM guru_settings WHERE guru_id = ?', [guruId]);
    if (!row) return {};
    // Written by update() only, so it parses; should it not (a hand-edited file), the defaults hold.
    const parsed = GuruSettingsPatch.safeParse(JSON.parse(row.settings_json));
    return parsed.success ? parsed.data : {};
  }
}
