/**
 * End users' profiles and memories, kept with Keyv in the record store
 * (src/state/keyv.ts): one namespace per guru and kind, the end user's id as
 * the key, so that the same id in two gurus never meets.
 */
import type { RecordStore } from '../../state/keyv.js';

export interface StoredProfile {
  readonly profile_data: Record<string, unknown>;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface StoredMemory {
  readonly memory: string;
  readonly created_at: string;
}

export interface ProfileUpdate {
  readonly externalUserId: string;
  readonly data: Record<string, unknown>;
}

export class EndUserRecords {
  readonly #store: RecordStore;

  constructor(store: RecordStore) {
    this.#store = store;
  }

  async profile(guru: string, externalUserId: string): Promise<StoredProfile | undefined> {
    return this.#profiles(guru).get<StoredProfile>(externalUserId);
  }

  async memories(guru: string, externalUserId: string): Promise<StoredMemory[]> {
    return (await this.#memories(guru).get<StoredMemory[]>(externalUserId)) ?? [];
  }

  /** Creates or replaces each user's profile (one per user: the id is the key), keeping when it was first created. */
  async upsertProfiles(guru: string, updates: readonly ProfileUpdate[], now: string): Promise<void> {
    // A user named twice in one request gets the later profile, as two requests in a row would give.
    const latest = [...new Map(updates.map((update) => [update.externalUserId, update.data])).entries()];
    if (latest.length === 0) return;
    const profiles = this.#profiles(guru);
    const existing = await profiles.getMany<StoredProfile>(latest.map(([externalUserId]) => externalUserId));
    const saved = await profiles.setMany<StoredProfile>(
      latest.map(([externalUserId, data], index) => ({
        key: externalUserId,
        value: { profile_data: data, created_at: existing[index]?.created_at ?? now, updated_at: now },
      })),
    );
    if (saved.includes(false)) throw new Error('the record store did not save every profile');
  }

  /** Adds durable facts about the end user, skipping ones already kept (answers keep what the end user states, with a language model). */
  async remember(guru: string, externalUserId: string, memories: readonly string[], now: string): Promise<void> {
    // The list is read, then written whole: two answers for one end user at once (in two processes)
    // must not each write the list without the other's facts.
    await this.#store.exclusively(`memories:${guru}`, externalUserId, async (store) => {
      const records = new EndUserRecords(store);
      const kept = await records.memories(guru, externalUserId);
      const known = new Set(kept.map((item) => item.memory));
      const added = [...new Set(memories)].filter((memory) => !known.has(memory)).map((memory) => ({ memory, created_at: now }));
      if (added.length > 0) await records.#memories(guru).set(externalUserId, [...kept, ...added]);
    });
  }

  /** Deletes the end user's profile and memories in the guru; returns how many of each there were. */
  async erase(guru: string, externalUserId: string): Promise<{ profile: number; memories: number }> {
    const memories = (await this.memories(guru, externalUserId)).length;
    const profile = (await this.#profiles(guru).delete(externalUserId)) ? 1 : 0;
    await this.#memories(guru).delete(externalUserId);
    await this.#store.compact();
    return { profile, memories };
  }

  /** Deletes every profile and memory kept in the guru (the guru is being deleted). */
  async eraseGuru(guru: string): Promise<void> {
    await this.clearGuru(guru);
    await this.#store.compact();
  }

  /** Deletes them without compacting the store: inside a transaction, which PostgreSQL's VACUUM cannot run in. */
  async clearGuru(guru: string): Promise<void> {
    await this.#profiles(guru).clear();
    await this.#memories(guru).clear();
  }

  #profiles(guru: string) {
    return this.#store.namespace(`profiles:${guru}`);
  }

  #memories(guru: string) {
    return this.#store.namespace(`memories:${guru}`);
  }
}
