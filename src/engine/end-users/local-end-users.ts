/**
 * End users of a guru (the `external_user_id` of integrations): everything the
 * guru holds about one, read a page at a time or erased for good, and their
 * profiles. Sessions and searches are read and erased through their
 * capabilities; profiles and memories are this capability's own records.
 */
import * as z from 'zod';
import type { EndUsers } from '../../core/assistant.js';
import { Errors, type Operation } from '../../core/errors.js';
import {
  EndUserDataQuery,
  Identifier,
  MAX_PROFILE_BYTES,
  UpsertProfilesRequest,
  type EndUserData,
  type ErasedEndUserData,
  type UpsertProfilesResponse,
  type UserResult,
} from '../../core/schemas.js';
import { checkPart, parseRequest } from '../../core/validate.js';
import { describeError } from '../../log.js';
import type { EndUserMemory, Recollection } from '../answer/model/model-pipeline.js';
import type { RecordStore } from '../../state/keyv.js';
import { timestamp, type EngineContext } from '../context.js';
import type { LocalGurus } from '../gurus/local-gurus.js';
import type { LocalProgress } from '../progress/local-progress.js';
import type { LocalSearch } from '../search/local-search.js';
import type { LocalSessions } from '../sessions/local-sessions.js';
import type { Sql } from '../store/sql.js';
import { emptyLog } from '../store/sqlite-sql.js';
import { EndUserRecords, type ProfileUpdate } from './records.js';

/**
 * Whether `value` takes at most `maxBytes` as JSON. One nested too deeply to serialize (the
 * stack runs out) is far past any cap, so it does not fit either.
 */
function fitsAsJson(value: unknown, maxBytes: number): boolean {
  try {
    return Buffer.byteLength(JSON.stringify(value)) <= maxBytes;
  } catch {
    return false;
  }
}

/** One user of an upsert request; any JSON object is a profile, within the size cap. */
const ProfileInput = z.object({
  external_user_id: Identifier,
  memory: z.looseObject({}).refine((memory) => fitsAsJson(memory, MAX_PROFILE_BYTES), {
    message: `memory must be at most ${MAX_PROFILE_BYTES / 1024} KiB as JSON`,
  }),
});

const EndUserId = z.object({ external_user_id: Identifier });

export class LocalEndUsers implements EndUsers, EndUserMemory {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #sessions: LocalSessions;
  readonly #search: LocalSearch;
  readonly #progress: LocalProgress;
  /** Opened on first use: Keyv and the record store load only when end users' records are touched. */
  #store: Promise<RecordStore> | undefined;

  constructor(context: EngineContext, gurus: LocalGurus, sessions: LocalSessions, search: LocalSearch, progress: LocalProgress) {
    this.#context = context;
    this.#gurus = gurus;
    this.#sessions = sessions;
    this.#search = search;
    this.#progress = progress;
  }

  async getEndUserData(slug: string, externalUserId: string, input: EndUserDataQuery): Promise<EndUserData> {
    const guru = await this.#gurus.find('enduser_data', slug);
    const id = this.#endUserId('enduser_data', externalUserId);
    const query = parseRequest(EndUserDataQuery, input, 'enduser_data');
    // The records first: when they cannot be read, the request fails before anything else is gathered.
    let profile;
    let memories;
    try {
      profile = await (await this.#records()).profile(guru.slug, id);
      memories = query.offset === 0 ? await (await this.#records()).memories(guru.slug, id) : [];
    } catch (error) {
      this.#context.logger.error('memory store unreadable', { guru: guru.slug, error: describeError(error) });
      throw Errors.memoryStoreUnreadable();
    }
    const history = await this.#sessions.endUserHistory(guru, id, query);
    const searches = await this.#search.endUserSearches(guru, id, query);
    return {
      external_user_id: id,
      data: {
        questions: history.questions.items,
        rejected_questions: history.rejectedQuestions.items,
        conversations: history.conversations.items,
        searches: searches.items,
        profile:
          profile === undefined ? [] : [{ profile_data: profile.profile_data, created_at: profile.created_at, updated_at: profile.updated_at }],
        memories: memories.map(({ memory }) => ({ memory })),
        page: {
          limit: query.limit,
          offset: query.offset,
          has_more: {
            questions: history.questions.hasMore,
            rejected_questions: history.rejectedQuestions.hasMore,
            conversations: history.conversations.hasMore,
            searches: searches.hasMore,
          },
        },
      },
    };
  }

  async eraseEndUserData(slug: string, externalUserId: string): Promise<ErasedEndUserData> {
    const guru = await this.#gurus.find('erase_enduser_data', slug);
    const id = this.#endUserId('erase_enduser_data', externalUserId);
    // The records first: if their store fails, the request fails and can simply be sent again.
    const records = await (await this.#records()).erase(guru.slug, id);
    const history = await this.#sessions.eraseEndUser(guru, id);
    const searches = await this.#search.eraseEndUserSearches(guru, id);
    await this.#progress.erase(guru.id, id);
    await this.#forgetRateLimitWindow(guru.slug, id);
    // PostgreSQL: the records' table is vacuumed by the erase above; questions, binges and
    // question_attachments are left to autovacuum (docs/security.md says what an erase leaves there).
    emptyLog(this.#context.sql);
    this.#context.logger.info('end-user data erased', { guru: guru.slug });
    return {
      external_user_id: id,
      deleted: {
        questions: history.questions,
        rejected_questions: history.rejectedQuestions,
        conversations: history.conversations,
        searches,
        profile: records.profile,
        memories: records.memories,
        attachments: history.attachments,
      },
    };
  }

  async upsertProfiles(slug: string, input: UpsertProfilesRequest): Promise<UpsertProfilesResponse> {
    const guru = await this.#gurus.find('upsert_profiles', slug);
    const request = parseRequest(UpsertProfilesRequest, input, 'upsert_profiles');
    const updates: ProfileUpdate[] = [];
    const results: UserResult[] = request.users.map((user, index) => {
      const checked = checkPart(ProfileInput, user);
      const externalUserId = typeof user.external_user_id === 'string' ? user.external_user_id : '';
      if (!checked.ok) return { user_index: index, external_user_id: externalUserId, success: false, errors: checked.problems };
      updates.push({ externalUserId: checked.value.external_user_id, data: checked.value.memory });
      return { user_index: index, external_user_id: externalUserId, success: true, errors: [] };
    });
    try {
      await (await this.#records()).upsertProfiles(guru.slug, updates, timestamp(this.#context));
    } catch (error) {
      this.#context.logger.error('saving profiles failed', { guru: guru.slug, error: describeError(error) });
      throw Errors.profilesInternal();
    }
    const failed = results.filter((result) => !result.success);
    if (failed.length > 0) {
      const details = failed.map((result) => `User ${result.user_index}: ${result.errors.join('; ')}`);
      throw Errors.profilesFailed({ details, users_results: results });
    }
    return { status: 'success', total_users: results.length, processed_users: updates.length, users_results: results };
  }

  /** Erases every end user's profile and memories in the guru (the guru is being deleted). */
  async forgetGuru(slug: string): Promise<void> {
    await (await this.#records()).eraseGuru(slug);
  }

  /**
   * On PostgreSQL, deletes the guru's profiles and memories in `tx`, the transaction that deletes
   * the guru: both go or neither, so a new guru of the same name never finds them. (On SQLite they
   * are in another file: `forgetGuru`, after the deletion.)
   */
  async forgetGuruWith(tx: Sql, slug: string): Promise<void> {
    if (tx.dialect !== 'postgres') return;
    const { openSqlRecordStore } = await import('../../state/keyv.js');
    await new EndUserRecords(openSqlRecordStore(tx)).clearGuru(slug);
  }

  /** The end user's profile and memories in the guru, for the prompt of their answers. */
  async recall(guru: string, externalUserId: string): Promise<Recollection> {
    const records = await this.#records();
    const [profile, memories] = await Promise.all([records.profile(guru, externalUserId), records.memories(guru, externalUserId)]);
    return { profile: profile?.profile_data, memories: memories.map(({ memory }) => memory) };
  }

  /** Keeps facts the end user stated in an answer's question. */
  async remember(guru: string, externalUserId: string, facts: readonly string[]): Promise<void> {
    await (await this.#records()).remember(guru, externalUserId, facts, timestamp(this.#context));
  }

  async close(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    if (store) await (await store).close();
  }

  /** The end user's rate-limit window (kept by any server on the data directory) goes with their data; it expires within a minute if this fails. */
  async #forgetRateLimitWindow(guru: string, externalUserId: string): Promise<void> {
    const { logger, settings } = this.#context;
    try {
      const { forgetRateLimitWindow } = await import('../../state/rate-limiter.js');
      await forgetRateLimitWindow(settings, { guru, externalUserId }, logger);
    } catch (error) {
      logger.warn("an erased end user's rate-limit window is left to expire", { error: describeError(error) });
    }
  }

  async #records(): Promise<EndUserRecords> {
    const { sql, settings } = this.#context;
    // On PostgreSQL the records are in its table end_user_records, shared by every process; else in <dataDir>/endusers.sqlite.
    this.#store ??= import('../../state/keyv.js').then(({ openRecordStore, openSqlRecordStore }) =>
      sql.dialect === 'postgres' ? openSqlRecordStore(sql) : openRecordStore(settings.dataDir),
    );
    return new EndUserRecords(await this.#store);
  }

  #endUserId(op: Operation, externalUserId: string): string {
    return parseRequest(EndUserId, { external_user_id: externalUserId }, op).external_user_id;
  }
}
