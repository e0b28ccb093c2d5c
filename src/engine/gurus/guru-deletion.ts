/**
 * Deleting a guru (local engine only): everything it holds goes, for good. Its running crawl is
 * stopped first; then one transaction deletes the guru's row, and ON DELETE CASCADE takes its
 * keys, sources (with chunks, vectors, links and jobs), sessions (with answers, votes, follow-ups
 * and attachments), crawls, searches, integrations and settings. What lives outside the database
 * follows: answer-progress lines, rate-limit windows, and on SQLite end users' profiles and
 * memories (endusers.sqlite; on PostgreSQL they go in the same transaction). The deleted words
 * leave the full-text index (FullText.forgetDeleted) and, on SQLite, the log is emptied into the
 * file, so that with secure_delete the text leaves the files.
 */
import type { GuruAdmin } from '../../core/assistant.js';
import type { DeletedGuru } from '../../core/schemas.js';
import { describeError } from '../../log.js';
import type { EngineContext } from '../context.js';
import type { LocalCrawling } from '../crawl/local-crawling.js';
import type { LocalEndUsers } from '../end-users/local-end-users.js';
import type { LocalProgress } from '../progress/local-progress.js';
import type { LocalSearch } from '../search/local-search.js';
import { emptyLog } from '../store/sqlite-sql.js';
import { fullTextOf } from '../search/retriever.js';
import type { LocalGurus } from './local-gurus.js';

/** What the guru holds, counted before it goes. */
const COUNTS = `SELECT
  (SELECT count(*) FROM data_sources WHERE guru_id = @id) AS data_sources,
  (SELECT count(*) FROM binges WHERE guru_id = @id AND deleted_at IS NULL) AS sessions,
  (SELECT count(*) FROM questions WHERE guru_id = @id) AS questions,
  (SELECT count(*) FROM crawls WHERE guru_id = @id) AS crawls,
  (SELECT count(*) FROM api_keys WHERE guru_id = @id) AS api_keys`;

export class GuruDeletion implements Pick<GuruAdmin, 'deleteGuru'> {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #crawling: LocalCrawling;
  readonly #endUsers: LocalEndUsers;
  readonly #progress: LocalProgress;
  readonly #search: LocalSearch;

  constructor(
    context: EngineContext,
    gurus: LocalGurus,
    crawling: LocalCrawling,
    endUsers: LocalEndUsers,
    progress: LocalProgress,
    search: LocalSearch,
  ) {
    this.#context = context;
    this.#gurus = gurus;
    this.#crawling = crawling;
    this.#endUsers = endUsers;
    this.#progress = progress;
    this.#search = search;
  }

  async deleteGuru(slug: string): Promise<DeletedGuru> {
    const guru = await this.#gurus.find('admin', slug);
    const { sql, logger } = this.#context;
    await this.#crawling.stopCrawlsOf(guru.id);
    // Searches are logged a moment after they are made: written now, they go with the guru.
    await this.#search.writePendingSearches();
    const { deleted, endUsers } = await sql.transaction(async (tx) => {
      const deleted = (await tx.get<DeletedGuru['deleted']>(COUNTS, { id: guru.id }))!;
      const endUsers = (
        await tx.all<{ id: string }>('SELECT DISTINCT external_user_id AS id FROM binges WHERE guru_id = ? AND external_user_id IS NOT NULL', [guru.id])
      ).map((row) => row.id);
      await tx.run('DELETE FROM gurus WHERE id = ?', [guru.id]);
      await this.#endUsers.forgetGuruWith(tx, guru.slug);
      // The rows are gone above; their words leave the full-text index too.
      await fullTextOf(tx).forgetDeleted();
      return { deleted, endUsers };
    });
    emptyLog(sql);
    // The guru is gone from the database (its keys no longer open anything); the rest is kept
    // apart from it, and a failure there is logged rather than undoing the deletion.
    await this.#forgetOutside(guru.id, guru.slug, endUsers);
    logger.info('guru deleted', { guru: guru.slug, ...deleted });
    return { slug: guru.slug, deleted };
  }

  async #forgetOutside(guruId: number, slug: string, endUsers: readonly string[]): Promise<void> {
    const { logger, settings } = this.#context;
    const steps: Array<[string, () => Promise<unknown>]> = [
      ['end-user records', () => this.#endUsers.forgetGuru(slug)],
      ['answer progress', () => Promise.all(endUsers.map((id) => this.#progress.erase(guruId, id)))],
      [
        // After the progress lines: compacting the state store takes their deleted bytes out too.
        'rate-limit windows',
        async () => {
          const { openStateStore, deleteKeysStartingWith, compactStateStore } = await import('../../state/keyv.js');
          const store = await openStateStore(settings, 'rate-limit', logger);
          try {
            await deleteKeysStartingWith(store, `${slug}:`);
          } finally {
            await store.disconnect();
          }
          compactStateStore(settings);
        },
      ],
    ];
    for (const [what, step] of steps) {
      try {
        await step();
      } catch (error) {
        logger.error(`deleting a guru: its ${what} could not be removed`, { guru: slug, error: describeError(error) });
      }
    }
  }
}
