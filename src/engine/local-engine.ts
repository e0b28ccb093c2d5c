/**
 * The embedded engine: the whole service over its store (the data directory's
 * SQLite file, or PostgreSQL with a database URL). It opens the store, builds one capability per folder over a shared context, and exposes
 * them as the Assistant port and the local guru administration. Behaviour
 * lives in the capabilities; this class only composes and delegates.
 */
import type { AnswerWithEvidence, Assistant, AskOptions, DataSourcePage, SearchOptions, SearchWithEvidence, GuruAdmin, SessionAttachment, SpeechOptions, UploadFile, UploadOptions } from '../core/assistant.js';
import type {
  AnswerProgress,
  AnswerProgressQuery,
  AskInput,
  ChannelImport,
  Crawl,
  CreateDataSourcesRequest,
  CreatedApiKey,
  CreatedDataSource,
  CreatedGuru,
  CreateGuruRequest,
  DeleteDataSourcesRequest,
  DeletedGuru,
  DeletedSession,
  FollowUpRequest,
  FollowUpResponse,
  EndUserData,
  EndUserDataQuery,
  ErasedEndUserData,
  Guru,
  GuruSettings,
  GuruSettingsPatch,
  ImportUrlRequest,
  Integration,
  IntegrationInput,
  IntegrationKind,
  ListDataSourcesQuery,
  ListSessionsRequest,
  MessageResponse,
  PlaylistImport,
  RecordedVote,
  RecordVoteRequest,
  ReindexRequest,
  SemanticSearchRequest,
  SessionConversation,
  SessionList,
  StartCrawlRequest,
  TextToSpeechRequest,
  UploadedDocument,
  UpsertProfilesRequest,
  UpsertProfilesResponse,
} from '../core/schemas.js';
import { silentLogger } from '../log.js';
import { ChatProvider } from '../providers/chat.js';
import { LocalAnswering } from './answer/local-answering.js';
import { DEFAULT_MODEL_STEPS, ModelPipeline } from './answer/model/model-pipeline.js';
import { OutageGuard } from './answer/model/outage-guard.js';
import { LocalAttachments } from './attachments/local-attachments.js';
import type { EngineContext, EngineSettings } from './context.js';
import { LocalCrawling } from './crawl/local-crawling.js';
import { LocalFollowUps } from './follow-ups/local-follow-ups.js';
import { LocalEndUsers } from './end-users/local-end-users.js';
import { GuruDeletion } from './gurus/guru-deletion.js';
import { LocalGurus } from './gurus/local-gurus.js';
import { LocalDataSources } from './ingest/local-data-sources.js';
import { LocalIntegrations } from './ingest/local-integrations.js';
import { LocalProgress } from './progress/local-progress.js';
import { LocalSearch } from './search/local-search.js';
import { LocalSessions } from './sessions/local-sessions.js';
import { LocalSpeech } from './speech/local-speech.js';
import { openStore } from './store/open-store.js';
import { LocalVotes } from './votes/local-votes.js';
import { LocalVideoLists } from './youtube/local-video-lists.js';

export type LocalEngineOptions = EngineSettings & {
  /** Work through the queue of sources to process (default true); false for short reads, which neither start nor take over work. */
  readonly processQueue?: boolean;
};

export class LocalEngine implements Assistant, GuruAdmin {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #integrations: LocalIntegrations;
  readonly #search: LocalSearch;
  readonly #dataSources: LocalDataSources;
  readonly #sessions: LocalSessions;
  readonly #votes: LocalVotes;
  readonly #progress: LocalProgress;
  readonly #answering: LocalAnswering;
  readonly #followUps: LocalFollowUps;
  readonly #crawling: LocalCrawling;
  readonly #videoLists: LocalVideoLists;
  readonly #endUsers: LocalEndUsers;
  readonly #speech: LocalSpeech;
  readonly #attachments: LocalAttachments;
  readonly #guruDeletion: GuruDeletion;
  /** The language model of answers, when one is configured. */
  readonly #chat: ChatProvider | undefined;
  /** Aborted on close: background work started by open() stops. */
  readonly #closing = new AbortController();

  private constructor(context: EngineContext) {
    this.#context = context;
    this.#gurus = new LocalGurus(context);
    this.#integrations = new LocalIntegrations(context, this.#gurus);
    this.#search = new LocalSearch(context, this.#gurus);
    this.#dataSources = new LocalDataSources(context, this.#gurus, this.#integrations);
    this.#sessions = new LocalSessions(context, this.#gurus);
    this.#votes = new LocalVotes(this.#gurus, this.#sessions);
    this.#progress = new LocalProgress(context, this.#gurus);
    this.#endUsers = new LocalEndUsers(context, this.#gurus, this.#sessions, this.#search, this.#progress);
    this.#chat = context.settings.llm && new ChatProvider(context.settings.llm);
    const chat = this.#chat && new OutageGuard(this.#chat);
    const model = chat && new ModelPipeline(chat, this.#search.retriever, this.#endUsers, context.logger, { ...DEFAULT_MODEL_STEPS, ...context.settings.modelSteps });
    const attachments = (this.#attachments = new LocalAttachments(context, this.#gurus, {
      limitsOf: async (guru) => (await this.#gurus.settingsOf(guru)).attachment_limits,
      extractPdf: (data) => this.#dataSources.pdfText(data),
      knowledgeChunks: (guruId) => this.#search.indexedChunks(guruId),
      imageReading: async (guru) =>
        context.settings.llm?.readsImages !== true ? 'no-image-model' : (await this.#gurus.settingsOf(guru)).use_model ? 'read' : 'guru-without-model',
    }));
    this.#answering = new LocalAnswering(this.#gurus, this.#search, this.#sessions, this.#progress, attachments, model);
    this.#followUps = new LocalFollowUps(context, this.#gurus, this.#search, this.#sessions, chat);
    const http = () => this.#dataSources.http();
    this.#crawling = new LocalCrawling(context, this.#gurus, http);
    this.#videoLists = new LocalVideoLists(context, http);
    this.#speech = new LocalSpeech(context, this.#gurus);
    this.#guruDeletion = new GuruDeletion(context, this.#gurus, this.#crawling, this.#endUsers, this.#progress, this.#search);
  }

  /**
   * Opens (creating if needed) the engine's store, the SQLite file in `dataDir` or the PostgreSQL
   * database at `databaseUrl`, and resumes unfinished work.
   */
  static async open(settings: LocalEngineOptions): Promise<LocalEngine> {
    const engine = new LocalEngine({
      sql: await openStore(settings),
      logger: settings.logger ?? silentLogger,
      clock: settings.clock ?? (() => new Date()),
      settings,
    });
    if (settings.processQueue === false) engine.#dataSources.leaveQueue();
    else engine.#dataSources.resume();
    engine.#crawling.recover();
    void engine.#search.prepareEmbeddings((sourceIds) => engine.#dataSources.queueEmbedding(sourceIds), engine.#closing.signal);
    return engine;
  }

  /** Resolves once no data-source processing is queued or running. */
  whenIdle(): Promise<void> {
    return this.#dataSources.whenIdle();
  }

  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort();
    await this.#crawling.close();
    await this.#dataSources.close();
    await this.#search.close();
    await this.#progress.close();
    await this.#endUsers.close();
    await this.#speech.close();
    await this.#chat?.close();
    await this.#context.sql.close();
  }

  // Answering, FollowUps, Progress, Searching
  ask(guru: string, input: AskInput, options?: AskOptions): Promise<AnswerWithEvidence> {
    return this.#answering.ask(guru, input, options);
  }
  followUpExamples(guru: string, request: FollowUpRequest): Promise<FollowUpResponse> {
    return this.#followUps.followUpExamples(guru, request);
  }
  answerProgress(guru: string, query: AnswerProgressQuery): Promise<AnswerProgress> {
    return this.#progress.answerProgress(guru, query);
  }
  semanticSearch(guru: string, request: SemanticSearchRequest, options?: SearchOptions): Promise<SearchWithEvidence> {
    return this.#search.semanticSearch(guru, request, options);
  }

  // Speech
  textToSpeech(guru: string, request: TextToSpeechRequest, options?: SpeechOptions): Promise<AsyncIterable<Uint8Array>> {
    return this.#speech.textToSpeech(guru, request, options);
  }

  // DataSources
  createDataSources(guru: string, request: CreateDataSourcesRequest): Promise<CreatedDataSource[]> {
    return this.#dataSources.createDataSources(guru, request);
  }
  listDataSources(guru: string, query: ListDataSourcesQuery): Promise<DataSourcePage> {
    return this.#dataSources.listDataSources(guru, query);
  }
  reindexDataSources(guru: string, request: ReindexRequest): Promise<MessageResponse> {
    return this.#dataSources.reindexDataSources(guru, request);
  }
  deleteDataSources(guru: string, request: DeleteDataSourcesRequest): Promise<MessageResponse> {
    return this.#dataSources.deleteDataSources(guru, request);
  }

  // Sessions
  listSessions(guru: string, request: ListSessionsRequest): Promise<SessionList> {
    return this.#sessions.listSessions(guru, request);
  }
  getSession(guru: string, sessionId: string): Promise<SessionConversation> {
    return this.#sessions.getSession(guru, sessionId);
  }
  deleteSession(guru: string, sessionId: string): Promise<DeletedSession> {
    return this.#sessions.deleteSession(guru, sessionId);
  }
  sessionAttachment(guru: string, sessionId: string, n: number): Promise<SessionAttachment> {
    return this.#attachments.read(guru, sessionId, n);
  }

  // Votes
  recordVote(guru: string, request: RecordVoteRequest): Promise<RecordedVote> {
    return this.#votes.recordVote(guru, request);
  }

  // Crawling
  startCrawl(guru: string, request: StartCrawlRequest): Promise<Crawl> {
    return this.#crawling.startCrawl(guru, request);
  }
  crawlStatus(guru: string, crawlId: number): Promise<Crawl> {
    return this.#crawling.crawlStatus(guru, crawlId);
  }
  stopCrawl(guru: string, crawlId: number): Promise<Crawl> {
    return this.#crawling.stopCrawl(guru, crawlId);
  }

  // VideoLists
  importChannel(request: ImportUrlRequest): Promise<ChannelImport> {
    return this.#videoLists.importChannel(request);
  }
  importPlaylist(request: ImportUrlRequest): Promise<PlaylistImport> {
    return this.#videoLists.importPlaylist(request);
  }

  // EndUsers
  getEndUserData(guru: string, externalUserId: string, query: EndUserDataQuery): Promise<EndUserData> {
    return this.#endUsers.getEndUserData(guru, externalUserId, query);
  }
  eraseEndUserData(guru: string, externalUserId: string): Promise<ErasedEndUserData> {
    return this.#endUsers.eraseEndUserData(guru, externalUserId);
  }
  upsertProfiles(guru: string, request: UpsertProfilesRequest): Promise<UpsertProfilesResponse> {
    return this.#endUsers.upsertProfiles(guru, request);
  }

  // GuruAdmin
  listGurus(): Promise<Guru[]> {
    return this.#gurus.listGurus();
  }
  createGuru(request: CreateGuruRequest): Promise<CreatedGuru> {
    return this.#gurus.createGuru(request);
  }
  createApiKey(guru: string): Promise<CreatedApiKey> {
    return this.#gurus.createApiKey(guru);
  }
  deleteGuru(guru: string): Promise<DeletedGuru> {
    return this.#guruDeletion.deleteGuru(guru);
  }
  authenticate(apiKey: string): Promise<string | undefined> {
    return this.#gurus.authenticate(apiKey);
  }
  uploadDocuments(guru: string, files: readonly UploadFile[], options?: UploadOptions): Promise<UploadedDocument[]> {
    return this.#dataSources.uploadDocuments(guru, files, options);
  }
  setIntegration(guru: string, input: IntegrationInput): Promise<Integration> {
    return this.#integrations.setIntegration(guru, input);
  }
  listIntegrations(guru: string): Promise<Integration[]> {
    return this.#integrations.listIntegrations(guru);
  }
  removeIntegration(guru: string, kind: IntegrationKind): Promise<boolean> {
    return this.#integrations.removeIntegration(guru, kind);
  }
  guruSettings(guru: string): Promise<GuruSettings> {
    return this.#gurus.guruSettings(guru);
  }

  updateGuruSettings(guru: string, patch: GuruSettingsPatch): Promise<GuruSettings> {
    return this.#gurus.updateGuruSettings(guru, patch);
  }
}
