import type { Db } from '../store/database.js';

/** Which gurus the operator let speak through the speech provider (version 2). */
export class SpeechRepository {
  readonly #enabled;
  readonly #enable;
  readonly #disable;

  constructor(db: Db) {
    this.#enabled = db.prepare<[number], { guru_id: number }>('SELECT guru_id FROM speech_provider_gurus WHERE guru_id = ?');
    this.#enable = db.prepare<[number, string]>('INSERT INTO speech_provider_gurus (guru_id, enabled_at) VALUES (?, ?) ON CONFLICT DO NOTHING');
    this.#disable = db.prepare<[number]>('DELETE FROM speech_provider_gurus WHERE guru_id = ?');
  }

  providerEnabled(guruId: number): boolean {
    return this.#enabled.get(guruId) !== undefined;
  }

  setProviderEnabled(guruId: number, enabled: boolean, now: string): void {
    if (enabled) this.#enable.run(guruId, now);
    else this.#disable.run(guruId);
  }
}
