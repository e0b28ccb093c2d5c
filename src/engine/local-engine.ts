/**
 * The embedded engine: the whole service over one SQLite file. It implements
 * the Assistant port and the local guru administration.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Assistant, AskOptions, DataSourcePage, GuruAdmin, UploadFile, UploadOptions } from '../core/assistant.js';
import { Errors, type Operation } from '../core/errors.js';
import type {
  Answer,
  ChannelImport,
  Crawl,
  CreatedApiKey,
  CreatedDataSource,
  CreatedGuru,
  CreatedSourceType,
  DataSourceType,
  DeletedSession,
  DocumentType,
  Guru,
  Integration,
  MessageResponse,
  PlaylistImport,
  Reference,
  SemanticSearchResponse,
  SessionConversation,
  SessionList,
  SessionSummary,
  UploadedDocument,
} from '../core/schemas.js';
import {
  AskInput,
  CreateDataSourcesRequest,
  CreateGuruRequest,
  ImportUrlRequest,
  IntegrationInput,
  IntegrationKind,
  ListDataSourcesQuery,
  ListSessionsRequest,
  ReindexRequest,
  SemanticSearchRequest,
  StartCrawlRequest,
} from '../core/schemas.js';
import { sessionUri } from '../core/uris.js';
import { parseRequest } from '../core/validate.js';
import { silentLogger, type Logger } from '../log.js';
import type { EmbeddingsSettings } from '../providers/embeddings.js';
import type { VideoListImporter } from './youtube/video-lists.js';
import { CrawlService } from './crawl/crawler.js';
import { Answerer } from './answer/answerer.js';
import { faviconOf, textPieces } from './answer/extractive.js';
import { SourceProcessor, type ProcessorLimits } from './ingest/processor.js';
import { SourceReading } from './ingest/reading.js';
import { fuseRanked } from './search/fusion.js';
import { parseQuery } from './search/query.js';
import { Retriever, type ChunkHit } from './search/retriever.js';
import { SemanticSearch } from './search/semantic.js';
import { ChunkRepository } from './store/chunks.js';
import { openDatabase, type Db } from './store/database.js';
import { GuruRepository, type GuruRow } from './store/gurus.js';
import { JobRepository } from './store/jobs.js';
import { IntegrationRepository } from './store/integrations.js';
import { SearchLogRepository } from './store/searches.js';
import { SecretBox } from './store/secrets.js';
import { SessionRepository, type QuestionRow } from './store/sessions.js';
import { parseLabels, SourceRepository, toListedSource } from './store/sources.js';

export interface LocalEngineOptions {
  readonly dataDir: string;
  readonly logger?: Logger;
  /** Let readers fetch from loopback and private addresses (refused by default). */
  readonly allowPrivateNetwork?: boolean;
  /** Where YouTube requests go instead of youtube.com (tests point it at a stand-in). */
  readonly youtubeBaseUrl?: string;
  /** How many sources are read at once, in all and from one host. */
  readonly processing?: ProcessorLimits;
  /** An OpenAI-compatible embeddings endpoint: search becomes hybrid (BM25 and vectors, fused). */
  readonly embeddings?: EmbeddingsSettings;
  /** The YouTube Data API, for importing channels and playlists. */
  readonly youtubeApi?: { readonly apiKey?: string; readonly baseUrl?: string };
  /** The engine's idea of now; tests move it to place sessions in time. */
  readonly clock?: () => Date;
}

const SESSION_PAGE_SIZE = 20;
/** Vector neighbours fused into a search, and into an answer's candidates. */
const RELATED_CHUNKS = 50;
const RELATED_ANSWER_CHUNKS = 12;
const EMBEDDINGS_RETRY_MS = 60_000;
const MAX_SEARCH_SOURCES = 10;
const DAY_MS = 86_400_000;
const URL_KINDS = ['youtube_urls', 'website_urls', 'zendesk_urls', 'jira_urls', 'confluence_urls'] as const;
type UrlKind = (typeof URL_KINDS)[number];
type IntegrationType = 'JIRA' | 'ZENDESK' | 'CONFLUENCE';

const URL_KIND_TYPES: Record<UrlKind, { readonly type: DataSourceType; readonly created: CreatedSourceType }> = {
  youtube_urls: { type: 'YOUTUBE', created: 'YouTube' },
  website_urls: { type: 'WEBSITE', created: 'Website' },
  zendesk_urls: { type: 'ZENDESK', created: 'Zendesk' },
  jira_urls: { type: 'JIRA', created: 'Jira' },
  confluence_urls: { type: 'CONFLUENCE', created: 'Confluence' },
};

/** How many sources of a kind one guru may hold: the hosted service's defaults. */
const SOURCE_LIMITS: Record<DataSourceType, number> = {
  WEBSITE: 1500,
  YOUTUBE: 100,
  JIRA: 100,
  ZENDESK: 100,
  CONFLUENCE: 100,
  TEXT: Number.POSITIVE_INFINITY,
  PDF: Number.POSITIVE_INFINITY,
  WORD: Number.POSITIVE_INFINITY,
  EXCEL: Number.POSITIVE_INFINITY,
};

const DOCUMENT_LABELS: Record<DocumentType, string> = { PDF: 'PDF', WORD: 'Word', EXCEL: 'Excel' };

const INTEGRATION_TYPES: Record<IntegrationKind, IntegrationType> = { jira: 'JIRA', zendesk: 'ZENDESK', confluence: 'CONFLUENCE' };

interface UrlSourcePlan {
  readonly type: DataSourceType;
  readonly created: CreatedSourceType;
  /** Canonical form: the same page sent twice is one source. */
  readonly url: string;
  readonly host: string;
}

/**
 * The canonical URL of each item, or a refusal naming the first bad one. The
 * URL helpers load with their readers, only when URL sources are added.
 */
async function canonicalUrls(kind: UrlKind, urls: readonly string[]): Promise<string[]> {
  const canonical =
    kind === 'youtube_urls'
      ? await import('./ingest/sources/youtube.js').then(({ videoId }) => (url: string) => `https://www.youtube.com/watch?v=${videoId(url)}`)
      : await import('./ingest/sources/web.js').then(({ normalizeUrl }) => normalizeUrl);
  return urls.map((url) => {
    try {
      return canonical(url);
    } catch (error) {
      throw Errors.invalidRequest('create_sources', `${kind}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/** Upload limits: documents bigger than this are refused rather than read into memory. */
const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;

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
  readonly #reading: SourceReading;
  readonly #integrations: IntegrationRepository;
  readonly #youtubeApi: LocalEngineOptions['youtubeApi'];
  #videoLists: Promise<VideoListImporter> | undefined;
  readonly #crawls: CrawlService;
  /** Resolves to undefined without embeddings; ready once the vector index is open. */
  readonly #semantic: Promise<SemanticSearch | undefined>;
  readonly #chunkCount;
  #closed = false;

  private constructor(db: Db, options: LocalEngineOptions) {
    const logger = options.logger ?? silentLogger;
    this.#db = db;
    this.#logger = logger;
    this.#clock = options.clock ?? (() => new Date());
    this.#gurus = new GuruRepository(db);
    this.#sources = new SourceRepository(db);
    this.#sessions = new SessionRepository(db);
    this.#searches = new SearchLogRepository(db);
    this.#jobs = new JobRepository(db);
    this.#retriever = new Retriever(db);
    this.#chunkCount = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM chunks WHERE guru_id = ?');
    this.#answerer = new Answerer(this.#retriever, (guruId) => this.#chunkCount.get(guruId)?.n ?? 0);
    const integrations = new IntegrationRepository(db, new SecretBox(options.dataDir));
    this.#integrations = integrations;
    this.#youtubeApi = options.youtubeApi;
    this.#reading = new SourceReading(
      {
        allowPrivateNetwork: options.allowPrivateNetwork ?? false,
        ...(options.youtubeBaseUrl === undefined ? {} : { youtubeBaseUrl: options.youtubeBaseUrl }),
      },
      (guruId, kind) => integrations.credentials(guruId, kind),
    );
    const embeddings = options.embeddings;
    // The provider (and its HTTP client) loads only when embeddings are configured.
    this.#semantic = embeddings
      ? import('../providers/embeddings.js').then(({ EmbeddingsProvider }) =>
          SemanticSearch.open(db, new EmbeddingsProvider(embeddings), logger),
        )
      : Promise.resolve(undefined);
    // Without embeddings no embedding job is ever queued.
    const embedder = embeddings && {
      embedSource: async (sourceId: number, signal: AbortSignal) => (await this.#semantic)?.embedSource(sourceId, signal),
    };
    this.#crawls = new CrawlService(db, () => this.#reading.http(), logger, { clock: this.#clock });
    this.#processor = new SourceProcessor(
      { db, jobs: this.#jobs, sources: this.#sources, chunks: new ChunkRepository(db) },
      this.#reading,
      logger,
      options.processing,
      embedder,
    );
  }

  /** Opens (creating if needed) the engine's database in `dataDir` and resumes unfinished work. */
  static open(options: LocalEngineOptions): LocalEngine {
    const engine = new LocalEngine(openDatabase(options.dataDir), options);
    engine.#processor.kick();
    engine.#crawls.recover();
    void engine.#prepareEmbeddings();
    return engine;
  }

  /**
   * Checks the embeddings provider and queues vectors for every source that
   * lacks them (all of them after a change of model). While the provider is
   * unreachable, search stays lexical and this is tried again every minute.
   */
  async #prepareEmbeddings(): Promise<void> {
    let semantic: SemanticSearch | undefined;
    try {
      semantic = await this.#semantic;
      if (!semantic || this.#closed) return;
      const sourceIds = await semantic.prepare();
      if (this.#closed || sourceIds.length === 0) return;
      this.#db
        .transaction(() => {
          for (const id of sourceIds) this.#jobs.enqueue('embed_source', id, null, Date.now());
        })
        .immediate();
      this.#logger.info('embedding sources', { sources: sourceIds.length, model: semantic.model });
      this.#processor.kick();
    } catch (error) {
      if (this.#closed) return;
      this.#logger.warn('embeddings provider unavailable; searching lexically until it answers', {
        reason: error instanceof Error ? error.message : String(error),
      });
      if (semantic) setTimeout(() => void this.#prepareEmbeddings(), EMBEDDINGS_RETRY_MS).unref();
    }
  }

  /** Resolves once no data-source processing is queued or running. */
  whenIdle(): Promise<void> {
    return this.#processor.whenIdle();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#processor.close();
    await this.#crawls.close();
    await this.#reading.close();
    await (await this.#semantic.catch(() => undefined))?.close();
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

  async uploadDocuments(slug: string, files: readonly UploadFile[], options: UploadOptions = {}): Promise<UploadedDocument[]> {
    const guru = this.#guru('admin', slug);
    const { documentKindOf, extractDocument, unsupportedDocumentMessage } = await import('./ingest/extract/document.js');
    const results: UploadedDocument[] = [];
    for (const file of files) {
      if (file.data.byteLength > MAX_DOCUMENT_BYTES) {
        results.push({ name: file.name, status: 'refused', error: `${file.name} is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB.` });
        continue;
      }
      const kind = documentKindOf(file.name, file.data);
      if (kind === undefined) {
        results.push({ name: file.name, status: 'refused', error: unsupportedDocumentMessage(file.name, file.data) });
        continue;
      }
      // A document whose text cannot be extracted still becomes a source, marked FAIL with the reason.
      let extracted: { title: string | undefined; markdown: string } | Error;
      try {
        extracted = await extractDocument(kind, file.data);
      } catch (error) {
        extracted = error instanceof Error ? error : new Error(String(error));
      }
      const title = (!(extracted instanceof Error) && extracted.title) || file.name;
      const row = this.#db
        .transaction(() => {
          const inserted = this.#sources.insertDocument({
            guruId: guru.id,
            type: kind,
            name: file.name,
            title,
            content: extracted instanceof Error ? '' : extracted.markdown,
            private: options.private ?? false,
            labels: sourceLabels(DOCUMENT_LABELS[kind], options.labels),
            now: this.#now(),
          });
          if (extracted instanceof Error) this.#sources.markFailed(inserted.id, extracted.message);
          else this.#jobs.enqueue('process_source', inserted.id, null, Date.now());
          return inserted;
        })
        .immediate();
      results.push({ name: file.name, status: 'success', id: row.id, type: kind, title, private: options.private ?? false });
    }
    this.#processor.kick();
    return results;
  }

  async setIntegration(slug: string, input: IntegrationInput): Promise<Integration> {
    const guru = this.#guru('admin', slug);
    const request = parseRequest(IntegrationInput, input, 'admin');
    const now = this.#now();
    this.#integrations.set(
      guru.id,
      { kind: INTEGRATION_TYPES[request.kind], baseUrl: request.base_url.replace(/\/+$/, ''), email: request.email ?? null, token: request.token },
      now,
    );
    return { kind: request.kind, base_url: request.base_url.replace(/\/+$/, ''), email: request.email ?? null, date_created: now };
  }

  async listIntegrations(slug: string): Promise<Integration[]> {
    const guru = this.#guru('admin', slug);
    return this.#integrations.list(guru.id).map((item) => ({
      kind: item.kind.toLowerCase() as IntegrationKind,
      base_url: item.baseUrl,
      email: item.email,
      date_created: item.dateCreated,
    }));
  }

  async removeIntegration(slug: string, kind: IntegrationKind): Promise<boolean> {
    const guru = this.#guru('admin', slug);
    return this.#integrations.remove(guru.id, INTEGRATION_TYPES[parseRequest(IntegrationKind, kind, 'admin')]);
  }

  // -------------------------------------------------------------------------
  // Data sources

  async createDataSources(slug: string, input: CreateDataSourcesRequest): Promise<CreatedDataSource[]> {
    const guru = this.#guru('create_sources', slug);
    const request = parseRequest(CreateDataSourcesRequest, input, 'create_sources');
    const planned = await this.#planUrlSources(guru, request);
    const now = this.#now();
    const created = this.#db
      .transaction((): CreatedDataSource[] => [
        ...planned.map((plan): CreatedDataSource => {
          const existing = this.#sources.findByUrl(guru.id, plan.url);
          if (existing) return { type: plan.created, url: plan.url, status: 'exists', id: existing.id, title: existing.title };
          const row = this.#sources.insertUrl({ guruId: guru.id, type: plan.type, url: plan.url, labels: sourceLabels(plan.created, request.labels), now });
          this.#jobs.enqueue('process_source', row.id, plan.host, Date.now());
          return { type: plan.created, url: plan.url, status: 'success', id: row.id, title: row.title };
        }),
        ...(request.text_sources ?? []).map(({ name, content }): CreatedDataSource => {
          const labels = sourceLabels('Text', request.labels);
          const existing = this.#sources.findText(guru.id, name);
          const row = existing
            ? this.#sources.replaceText(existing.id, content, labels)
            : this.#sources.insertText({ guruId: guru.id, name, content, labels, now });
          this.#jobs.enqueue('process_source', row.id, null, Date.now());
          return { type: 'Text', status: 'success', id: row.id, title: row.title, content };
        }),
      ])
      .immediate();
    this.#processor.kick();
    return created;
  }

  /**
   * Checks every URL of a request before anything is stored: its shape, the
   * guru's integration for its kind, and the guru's limit per kind. One bad
   * item refuses the whole request, naming it.
   */
  async #planUrlSources(guru: GuruRow, request: CreateDataSourcesRequest): Promise<UrlSourcePlan[]> {
    const plans: UrlSourcePlan[] = [];
    for (const kind of URL_KINDS) {
      const urls = request[kind] ?? [];
      if (urls.length === 0) continue;
      const { type, created } = URL_KIND_TYPES[kind];
      if (type === 'JIRA' || type === 'ZENDESK' || type === 'CONFLUENCE') this.#requireIntegration(guru, type, created);
      const canonical = await canonicalUrls(kind, urls);
      const fresh = new Set(canonical.filter((url) => !this.#sources.findByUrl(guru.id, url)));
      const limit = SOURCE_LIMITS[type];
      const held = this.#sources.countOfType(guru.id, type);
      if (held + fresh.size > limit) {
        throw Errors.invalidRequest(
          'create_sources',
          `${kind}: the guru holds ${held} ${created} sources and may hold at most ${limit}; ${fresh.size} more would exceed that.`,
        );
      }
      for (const url of canonical) plans.push({ type, created, url, host: new URL(url).host });
    }
    return plans;
  }

  #requireIntegration(guru: GuruRow, type: IntegrationType, name: string): void {
    if (!this.#integrations.credentials(guru.id, type)) throw Errors.integrationMissing(name, guru.slug);
  }

  async reindexDataSources(slug: string, input: ReindexRequest): Promise<MessageResponse> {
    const guru = this.#guru('reindex_sources', slug);
    const request = parseRequest(ReindexRequest, input, 'reindex_sources');
    const ids = [...new Set(request.ids)];
    const rows = ids.map((id) => this.#sources.get(id));
    const missing = ids.filter((id, i) => rows[i]?.guru_id !== guru.id);
    if (missing.length > 0) throw Errors.invalidRequest('reindex_sources', `no data source with id ${missing.join(', ')} in this guru`);
    const now = this.#now();
    this.#db
      .transaction(() => {
        for (const row of rows) {
          if (!row) continue;
          this.#sources.markForReindex(row.id, now);
          this.#jobs.enqueue('process_source', row.id, row.url === null ? null : new URL(row.url).host, Date.now());
        }
      })
      .immediate();
    this.#processor.kick();
    return { msg: `Reindexing ${ids.length} data source${ids.length === 1 ? '' : 's'}` };
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
    const lexical = this.#retriever.searchSources(guru.id, parseQuery(request.question), { limit: MAX_SEARCH_SOURCES * 2, labels });
    const related = labels.length > 0 ? undefined : await this.#relatedChunks(guru.id, request.question);
    const hits = related
      ? this.#retriever.sourcesById(
          fuseRanked(
            [lexical.map((hit) => hit.sourceId), [...new Set(related.map((hit) => hit.sourceId))]],
            (id) => id,
          ).slice(0, MAX_SEARCH_SOURCES),
        )
      : lexical.slice(0, MAX_SEARCH_SOURCES);
    const sources = hits.map((hit) => ({
      title: hit.title,
      link: hit.url,
      display_link: hit.url !== null,
      icon_url: faviconOf(hit.url),
      labels: parseLabels(hit.labels),
    }));
    return { sources, total_sources: sources.length, search_mode: related ? 'hybrid' : 'lexical' };
  }

  /** Chunks close in meaning to the text, best first; undefined when search is lexical now. */
  async #relatedChunks(guruId: number, text: string): Promise<ChunkHit[] | undefined> {
    const semantic = await this.#semantic;
    const ids = await semantic?.nearestChunks(guruId, text, RELATED_CHUNKS);
    return ids && this.#retriever.chunksById(ids);
  }

  // -------------------------------------------------------------------------
  // Crawling

  async startCrawl(slug: string, input: StartCrawlRequest): Promise<Crawl> {
    const guru = this.#guru('start_crawl', slug);
    const request = parseRequest(StartCrawlRequest, input, 'start_crawl');
    return this.#crawls.start(guru.id, request.url, request.ignore_query_params);
  }

  async crawlStatus(slug: string, crawlId: number): Promise<Crawl> {
    return this.#crawls.get(this.#guru('crawl_status', slug).id, crawlId);
  }

  async stopCrawl(slug: string, crawlId: number): Promise<Crawl> {
    return this.#crawls.stop(this.#guru('stop_crawl', slug).id, crawlId);
  }

  // -------------------------------------------------------------------------
  // Video lists

  async importChannel(input: ImportUrlRequest): Promise<ChannelImport> {
    const request = parseRequest(ImportUrlRequest, input, 'import_channel');
    return (await this.#videoListImporter()).importChannel(request.url);
  }

  async importPlaylist(input: ImportUrlRequest): Promise<PlaylistImport> {
    const request = parseRequest(ImportUrlRequest, input, 'import_playlist');
    return (await this.#videoListImporter()).importPlaylist(request.url);
  }

  #videoListImporter(): Promise<VideoListImporter> {
    this.#videoLists ??= Promise.all([import('./youtube/video-lists.js'), this.#reading.http()]).then(
      ([{ VideoListImporter }, http]) =>
        new VideoListImporter(http, {
          apiKey: this.#youtubeApi?.apiKey,
          ...(this.#youtubeApi?.baseUrl === undefined ? {} : { baseUrl: this.#youtubeApi.baseUrl }),
        }),
    );
    return this.#videoLists;
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
    const related = await this.#relatedChunks(guru.id, parent ? `${parent.question}\n${question}` : question);
    const draft = this.#answerer.draft(
      { guruId: guru.id, guruName: guru.name, question, ...(parent ? { previousQuestion: parent.question } : {}) },
      related?.slice(0, RELATED_ANSWER_CHUNKS),
    );
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
