/**
 * Answer progress: one short line per guru and end user saying what their
 * latest answer is doing, kept in the shared short-lived store (Keyv) so that
 * every instance on the data directory sees it, for two minutes after its
 * last update. Answers write the lines; polls read them.
 */
import { createHash } from 'node:crypto';
import type Keyv from 'keyv';
import type { Progress } from '../../core/assistant.js';
import { AnswerProgressQuery, type AnswerProgress } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { describeError } from '../../log.js';
import type { EngineContext } from '../context.js';
import type { LocalGurus } from '../gurus/local-gurus.js';

/** How long a line stays after its last update (DESIGN.md: 120 s). */
export const PROGRESS_LIFETIME_MS = 120_000;

const NOTHING: AnswerProgress = { status_text: '', updated_at: null };

interface StoredLine {
  readonly status_text: string;
  /** Unix seconds (a float) by the engine's clock. */
  readonly updated_at: number;
}

/** The stages an answer reports, in plain words; nothing a user typed ever goes into a line. */
export type AnswerStage = 'Reading the attachments' | 'Gathering context' | 'Searching the knowledge base' | 'Writing the answer';

/** What answers see of this capability. */
export interface ProgressReporter {
  /** Sets the end user's line to `stage`; a store that fails is logged, never the answer's problem. */
  report(guruId: number, externalUserId: string, stage: AnswerStage): Promise<void>;
}

export class LocalProgress implements Progress, ProgressReporter {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  /** Opened on first use: an engine that never answers for an end user never loads the store. */
  #store: Promise<Keyv> | undefined;

  constructor(context: EngineContext, gurus: LocalGurus) {
    this.#context = context;
    this.#gurus = gurus;
  }

  async answerProgress(slug: string, raw: AnswerProgressQuery): Promise<AnswerProgress> {
    const guru = await this.#gurus.find('answer_progress', slug);
    const query = parseRequest(AnswerProgressQuery, raw, 'answer_progress');
    const line = await (await this.#open()).get<StoredLine>(lineKey(guru.id, query.external_user_id));
    if (line === undefined || this.#now() - line.updated_at > PROGRESS_LIFETIME_MS / 1000) return NOTHING;
    return { status_text: line.status_text, updated_at: line.updated_at };
  }

  async report(guruId: number, externalUserId: string, stage: AnswerStage): Promise<void> {
    try {
      const line: StoredLine = { status_text: `${stage}…`, updated_at: this.#now() };
      await (await this.#open()).set(lineKey(guruId, externalUserId), line, PROGRESS_LIFETIME_MS);
    } catch (error) {
      this.#context.logger.warn('answer progress not recorded', { error: describeError(error) });
    }
  }

  /** Forgets the end user's line (erasing an end user's data). */
  async erase(guruId: number, externalUserId: string): Promise<void> {
    await (await this.#open()).delete(lineKey(guruId, externalUserId));
  }

  async close(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    if (store) await (await store).disconnect();
  }

  #now(): number {
    return this.#context.clock().getTime() / 1000;
  }

  #open(): Promise<Keyv> {
    this.#store ??= import('../../state/keyv.js').then(({ openStateStore }) =>
      openStateStore(this.#context.settings, 'answer-progress', this.#context.logger),
    );
    return this.#store;
  }
}

/** The store key of a line: a digest, so that end-user ids of any length fit and none is kept in clear. */
const lineKey = (guruId: number, externalUserId: string): string =>
  createHash('sha256').update(`${guruId}\0${externalUserId}`).digest('hex');
