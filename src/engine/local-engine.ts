/**
 * The embedded engine: the whole service over one SQLite file. It implements
 * the Assistant port and the local guru administration.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Assistant, AskOptions, DataSourcePage, GuruAdmin } from '../core/assistant.js';
import { Errors, type Operation } from '../core/errors.js';
import type {
  Answer,
  CreatedApiKey,
  CreatedDataSource,
  CreatedGuru,
  DeletedSession,
  Guru,
  Reference,
  SemanticSearchResponse,
  SessionConversation,
  SessionList,
  SessionSummary,
} from '../core/schemas.js';
import {
  AskInput,
  CreateDataSourcesRequest,
  CreateGuruRequest,
  ListDataSourcesQuery,
  ListSessionsRequest,
  SemanticSearchRequest,
} from '../core/schemas.js';
import { sessionUri } from '../core/uris.js';
import { parseRequest } from '../core/validate.js';
import { silentLogger, type Logger } from '../log.js';
import { Answerer } from './answer/answerer.js';
import { faviconOf, textPieces } from './answer/extractive.js';
import { SourceProcessor } from './ingest/processor.js';
import { parseQuery } from './search/query.js';
import { Retriever } from './search/retriever.js';
import { ChunkRepository } from './store/chunks.js';
import { openDatabase, type Db } from './store/database.js';
import { GuruRepository, type GuruRow } from './store/gurus.js';
import { JobRepository } from './store/jobs.js';
import { SearchLogRepository } from './store/searches.js';
import { SessionRepository, type QuestionRow } from './store/sessions.js';
import { parseLabels, SourceRepository, toListedSource } from './store/sources.js';

export interface LocalEngineOptions {
  readonly dataDir: string;
  readonly logger?: Logger;
  /** The engine's idea of now; tests move it to place sessions in time. */
  readonly clock?: () => Date;
}

const SESSION_PAGE_SIZE = 20;
const MAX_SEARCH_SOURCES = 10;
const DAY_MS = 86_400_000;
const URL_KINDS = ['youtube_urls', 'website_urls', 'zendesk_urls', 'jira_urls', 'confluence_urls'] as const;

/** `how-do-i-install-it-3f9a1c07d2e4`: readable in any script, and unique thanks to 48 random bits. */
function questionSlug(question: string): string {
  const words = question
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${words || 'question'}-${randomBytes(6).toString('hex')}`;
}

const normalizeQuestion = (text: string): string => text.trim().replace(/\s+/g, ' ');

/** Labels of a new source: its type label first, then the caller's, without repeats (ignoring case). */
function sourceLabels(typeLabel: string, extra: readonly string[] = []): string[] {
  const seen = new Set<string>();
  return [typeLabel, ...extra.map((label) => label.trim())].filter((label) => {
    const key = label.toLowerCase();
    if (label === '' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export class LocalEngine implements Assistant, GuruAdmin {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #clock: () => Date;
  readonly #gurus: GuruRepository;
  readonly #sources: SourceRepository;
  readonly #sessions: SessionRepository;
  readonly #searches: SearchLogRepository;
  readonly #jobs: JobRepository;
  readonly #retriever: Retriever;
  readonly #answerer: Answerer;
  readonly #processor: SourceProcessor;
  readonly #chunkCount;
  #closed = false;

  private constructor(db: Db, logger: Logger, clock: () => Date) {
    this.#db = db;
    this.#logger = logger;
    this.#clock = clock;
    this.#gurus = new GuruRepository(db);
    this.#sources = new SourceRepository(db);
    this.#sessions = new SessionRepository(db);
    this.#searches = new SearchLogRepository(db);
    this.#jobs = new JobRepository(db);
    this.#retriever = new Retriever(db);
    this.#chunkCount = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM chunks WHERE guru_id = ?');
    this.#answerer = new Answerer(this.#retriever, (guruId) => this.#chunkCount.get(guruId)?.n ?? 0);
    this.#processor = new SourceProcessor({ db, jobs: this.#jobs, sources: this.#sources, chunks: new ChunkRepository(db) }, logger);
  }

  /** Opens (creating if needed) the engine's database in `dataDir` and resumes unfinished work. */
  static open(options: LocalEngineOptions): LocalEngine {
    const engine = new LocalEngine(openDatabase(options.dataDir), options.logger ?? silentLogger, options.clock ?? (() => new Date()));
    engine.#processor.kick();
    return engine;
  }

  /** Resolves once no data-source processing is queued or running. */
  whenIdle(): Promise<void> {
    return this.#processor.whenIdle();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#processor.close();
    this.#db.close();
  }

  #now(): string {
    return this.#clock().toISOString();
  }

  #guru(op: Operation, slug: string): GuruRow {
    const guru = this.#gurus.find(slug);
    if (!guru) throw Errors.guruNotFound(op, slug);
    return guru;
  }

  // -------------------------------------------------------------------------
  // Administration

  async listGurus(): Promise<Guru[]> {
    return this.#gurus.list().map(({ slug, name, date_created }) => ({ slug, name, date_created }));
  }

  async createGuru(input: CreateGuruRequest): Promise<CreatedGuru> {
    const parsed = CreateGuruRequest.safeParse(input);
    if (!parsed.success) {
      throw Errors.invalidRequest('admin', `slug ${JSON.stringify(input.slug)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
    const request = parsed.data;
    const now = this.#now();
    return this.#db
      .transaction(() => {
        const guru = this.#gurus.create(request.slug, request.name ?? request.slug, now);
        if (!guru) throw Errors.guruExists(request.slug);
        return { slug: guru.slug, name: guru.name, api_key: this.#gurus.addKey(guru.id, now) };
      })
      .immediate();
  }

  async createApiKey(slug: string): Promise<CreatedApiKey> {
    const guru = this.#guru('admin', slug);
    return { slug: guru.slug, api_key: this.#gurus.addKey(guru.id, this.#now()) };
  }

  async authenticate(apiKey: string): Promise<string | undefined> {
    return this.#gurus.findByKey(apiKey)?.slug;
  }

  // -------------------------------------------------------------------------
  // Data sources

  async createDataSources(slug: string, input: CreateDataSourcesRequest): Promise<CreatedDataSource[]> {
    const guru = this.#guru('create_sources', slug);
    const request = parseRequest(CreateDataSourcesRequest, input, 'create_sources');
    const unsupported = URL_KINDS.filter((kind) => (request[kind]?.length ?? 0) > 0);
    if (unsupported.length > 0) {
      throw Errors.invalidRequest(
        'create_sources',
        `${unsupported.join(', ')} cannot be ingested by this server yet; send the knowledge as text_sources ({name, content}).`,
      );
    }
    const now = this.#now();
    const created = this.#db.transaction(() =>
      (request.text_sources ?? []).map(({ name, content }): CreatedDataSource => {
        const labels = sourceLabels('Text', request.labels);
        const existing = this.#sources.findText(guru.id, name);
        const row = existing
          ? this.#sources.replaceText(existing.id, content, labels)
          : this.#sources.insertText({ guruId: guru.id, name, content, labels, now });
        this.#jobs.enqueue('process_source', row.id, Date.now());
        return { type: 'Text', status: 'success', id: row.id, title: row.title, content };
      }),
    ).immediate();
    this.#processor.kick();
    return created;
  }

  async listDataSources(slug: string, input: ListDataSourcesQuery): Promise<DataSourcePage> {
    const guru = this.#guru('list_sources', slug);
    const query = parseRequest(ListDataSourcesQuery, input, 'list_sources');
    const rows = this.#sources.page(guru.id, query.page_size, (query.page - 1) * query.page_size);
    return { count: this.#sources.count(guru.id), page: query.page, page_size: query.page_size, results: rows.map(toListedSource) };
  }

  // -------------------------------------------------------------------------
  // Search

  async semanticSearch(slug: string, input: SemanticSearchRequest): Promise<SemanticSearchResponse> {
    const guru = this.#guru('semantic_search', slug);
    const request = parseRequest(SemanticSearchRequest, input, 'semantic_search');
    const labels = request.labels ?? [];
    this.#searches.record({
      guruId: guru.id,
      externalUserId: request.external_user_id ?? null,
      query: request.question,
      labels,
      now: this.#now(),
    });
    const hits = this.#retriever.searchSources(guru.id, parseQuery(request.question), { limit: MAX_SEARCH_SOURCES, labels });
    const sources = hits.map((hit) => ({
      title: hit.title,
      link: hit.url,
      display_link: hit.url !== null,
      icon_url: faviconOf(hit.url),
      labels: parseLabels(hit.labels),
    }));
    return { sources, total_sources: sources.length };
  }

  // -------------------------------------------------------------------------
  // Answers

  async ask(slug: string, raw: AskInput, options: AskOptions = {}): Promise<Answer> {
    options.signal?.throwIfAborted();
    const guru = this.#guru('ask', slug);
    const input = parseRequest(AskInput, raw, 'ask');
    if ((input.images?.length ?? 0) + (input.log_files?.length ?? 0) + (input.pdf_files?.length ?? 0) > 0) {
      throw Errors.badAsk('Attachments (images, log_files, pdf_files) are not supported by this server yet');
    }
    const question = normalizeQuestion(input.question);
    const externalUserId = input.external_user_id ?? null;
    const binge = input.session_id === undefined ? undefined : this.#sessions.binge(input.session_id);
    if (input.session_id !== undefined && (!binge || binge.guru_id !== guru.id || binge.deleted_at !== null)) {
      throw Errors.sessionNotFoundForAsk(input.session_id);
    }
    if (binge && externalUserId !== null && binge.external_user_id !== null && binge.external_user_id !== externalUserId) {
      throw Errors.externalUserMismatch();
    }

    if (input.fetch_existing) {
      const existing = this.#sessions.existingAnswer(guru.id, question, binge?.id ?? null, externalUserId);
      if (existing) return this.#stream(this.#answerOf(guru, existing), options);
    }

    const parent = binge ? this.#sessions.lastTurn(binge.id) : undefined;
    options.onStage?.('Searching the knowledge base');
    const draft = this.#answerer.draft({
      guruId: guru.id,
      guruName: guru.name,
      question,
      ...(parent ? { previousQuestion: parent.question } : {}),
    });
    options.onStage?.('Writing the answer');

    // Stored before it is streamed: a caller that goes away mid-stream can still fetch it.
    const now = this.#now();
    const bingeId = binge?.id ?? randomUUID();
    const row = this.#db.transaction(() => {
      if (!binge) this.#sessions.openBinge(bingeId, guru.id, externalUserId, now);
      return this.#sessions.addTurn({
        guruId: guru.id,
        bingeId,
        parentId: parent?.id ?? null,
        slug: questionSlug(question),
        userQuestion: input.question,
        question,
        content: draft.content,
        trustScore: draft.trustScore,
        references: draft.references,
        canReceiveFeedback: draft.answered,
        attachmentNote: null,
        source: options.origin ?? 'API',
        externalUserId,
        now,
      });
    }).immediate();
    return this.#stream(this.#answerOf(guru, row), options);
  }

  /** Hands the answer's text to `onText` piece by piece, then returns the answer. */
  #stream(answer: Answer, options: AskOptions): Answer {
    if (options.onText) {
      for (const piece of textPieces(answer.content)) {
        options.signal?.throwIfAborted();
        options.onText(piece);
      }
    }
    return answer;
  }

  #answerOf(guru: GuruRow, row: QuestionRow): Answer {
    return {
      slug: row.slug,
      content: row.content,
      question: row.question,
      date_updated: row.date_updated.slice(0, 10),
      trust_score: row.trust_score,
      references: JSON.parse(row.references_json) as Reference[],
      session_id: row.binge_id,
      question_url: sessionUri(guru.slug, row.binge_id),
      can_receive_feedback: row.can_receive_feedback === 1,
      ...(row.attachment_note === null ? {} : { attachment_note: row.attachment_note }),
    };
  }

  // -------------------------------------------------------------------------
  // Sessions

  async listSessions(slug: string, input: ListSessionsRequest): Promise<SessionList> {
    const guru = this.#guru('list_sessions', slug);
    const request = parseRequest(ListSessionsRequest, input, 'list_sessions');
    const rows = this.#sessions.summaries({
      guruId: guru.id,
      search: request.search_query.trim(),
      externalUserId: request.external_user_id,
      limit: SESSION_PAGE_SIZE + 1,
      offset: (request.page_num - 1) * SESSION_PAGE_SIZE,
    });
    const now = this.#clock();
    const startOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const list: SessionList = { today: [], last_week: [], older: [], has_more: rows.length > SESSION_PAGE_SIZE };
    for (const row of rows.slice(0, SESSION_PAGE_SIZE)) {
      const summary: SessionSummary = {
        id: row.id,
        last_used: row.last_used,
        guru_type_slug: guru.slug,
        guru_type_name: guru.name,
        root_question_name: row.root_question,
        root_question_slug: row.root_slug,
        root_question_link: sessionUri(guru.slug, row.id),
      };
      const lastUsed = Date.parse(row.last_used);
      if (lastUsed >= startOfToday) list.today.push(summary);
      else if (lastUsed >= startOfToday - 7 * DAY_MS) list.last_week.push(summary);
      else list.older.push(summary);
    }
    return list;
  }

  async getSession(slug: string, sessionId: string): Promise<SessionConversation> {
    const guru = this.#guru('get_session', slug);
    if (sessionId.trim() === '') throw Errors.invalidRequest('get_session');
    const binge = this.#sessions.binge(sessionId);
    if (!binge || binge.deleted_at !== null) throw Errors.bingeNotFound();
    if (binge.guru_id !== guru.id) throw Errors.noBingeAccess();
    const turns = this.#sessions.turns(binge.id);
    const slugOf = new Map(turns.map((turn) => [turn.id, turn.slug]));
    return {
      binge_id: binge.id,
      root_question_slug: turns[0]?.slug ?? '',
      date_created: binge.date_created,
      last_used: binge.last_used,
      conversation: turns.map((turn) => ({
        id: String(turn.id),
        slug: turn.slug,
        user_question: turn.user_question,
        question: turn.question,
        answer: turn.content,
        date_created: turn.date_created,
        date_updated: turn.date_updated,
        references: JSON.parse(turn.references_json) as Reference[],
        trust_score: turn.trust_score,
        parent_slug: turn.parent_id === null ? null : (slugOf.get(turn.parent_id) ?? null),
        source: turn.source,
        user_vote: turn.user_vote,
      })),
    };
  }

  async deleteSession(slug: string, sessionId: string): Promise<DeletedSession> {
    const guru = this.#guru('delete_session', slug);
    if (sessionId.trim() === '') throw Errors.invalidRequest('delete_session');
    const binge = this.#sessions.binge(sessionId);
    if (!binge) throw Errors.sessionNotFound();
    if (binge.guru_id !== guru.id) throw Errors.forbidden('delete_session');
    if (binge.deleted_at !== null) throw Errors.sessionAlreadyDeleted();
    this.#sessions.delete(binge.id, this.#now());
    this.#logger.debug('session deleted', { guru: guru.slug });
    return { msg: 'Session deleted successfully', session_id: binge.id };
  }
}
