/**
 * The port: what the MCP server, the REST API and the CLI ask of a backend.
 * The local engine and the remote adapter both implement it. Every method is
 * scoped to one guru; implementations refuse anything outside it.
 */
import type {
  Answer,
  AnswerProgress,
  AnswerProgressQuery,
  ChannelImport,
  Crawl,
  ImportUrlRequest,
  PlaylistImport,
  StartCrawlRequest,
  AskInput,
  TextToSpeechRequest,
  CreatedApiKey,
  CreatedDataSource,
  CreatedGuru,
  CreateDataSourcesRequest,
  CreateGuruRequest,
  DataSource,
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
  Integration,
  IntegrationInput,
  IntegrationKind,
  ListDataSourcesQuery,
  ListSessionsRequest,
  MessageResponse,
  RecordedVote,
  RecordVoteRequest,
  ReindexRequest,
  SemanticSearchRequest,
  SemanticSearchResponse,
  SessionConversation,
  SessionList,
  UploadedDocument,
  UpsertProfilesRequest,
  UpsertProfilesResponse,
} from './schemas.js';
import type { EvidenceRequest, EvidenceSet } from './evidence.js';

/** Which surface a question came in through; stored as the question's `source` (`WEB`: the web interface, over REST). */
export type QuestionOrigin = 'API' | 'MCP' | 'CLI' | 'WEB';

export type { AskInput } from './schemas.js';

export interface AskOptions {
  readonly signal?: AbortSignal;
  /** Receives the answer text as it is written, in order; their concatenation is `Answer.content`. */
  readonly onText?: (delta: string) => void;
  /** Receives a short line whenever the answer moves to a new stage. */
  readonly onStage?: (line: string) => void;
  readonly origin?: QuestionOrigin;
  /**
   * Asks for the passages the answer drew on (MCP): a backend that has them returns them as
   * `evidence`, best first, within the budget; one that has not (the hosted REST API) leaves it out.
   */
  readonly evidence?: EvidenceRequest;
}

/** An answer, with the passages it drew on when AskOptions.evidence asked for them and the backend has them. */
export type AnswerWithEvidence = Answer & { readonly evidence?: EvidenceSet };

export interface SearchOptions {
  /** Asks for the sources' best excerpts, within the budget (see AskOptions.evidence). */
  readonly evidence?: EvidenceRequest;
}

/** Search results; with SearchOptions.evidence, excerpts of the sources (one or more each; an excerpt's `source` is the place in `sources`), within the budget. */
export type SearchWithEvidence = SemanticSearchResponse & { readonly evidence?: EvidenceSet };

/** One page of the data-source listing; REST renders `next`/`previous` from it. */
export interface DataSourcePage {
  readonly count: number;
  readonly page: number;
  readonly page_size: number;
  readonly results: DataSource[];
}

export interface Answering {
  ask(guru: string, input: AskInput, options?: AskOptions): Promise<AnswerWithEvidence>;
}

export interface Searching {
  semanticSearch(guru: string, request: SemanticSearchRequest, options?: SearchOptions): Promise<SearchWithEvidence>;
}

export interface DataSources {
  createDataSources(guru: string, request: CreateDataSourcesRequest): Promise<CreatedDataSource[]>;
  listDataSources(guru: string, query: ListDataSourcesQuery): Promise<DataSourcePage>;
  /** Reads URL sources again and re-indexes the stored text of texts and documents. */
  reindexDataSources(guru: string, request: ReindexRequest): Promise<MessageResponse>;
  /**
   * Deletes sources by id, for good: their text leaves the index and the store. Ids that are not
   * sources of this guru are passed over (another guru's sources are never touched).
   */
  deleteDataSources(guru: string, request: DeleteDataSourcesRequest): Promise<MessageResponse>;
}

/** A log file or PDF attached to a question of a session, as its guru:// link names it. */
export interface SessionAttachment {
  /** The file name it was sent with. */
  readonly name: string;
  /** A log file as sent (`text/plain`), a PDF as the Markdown extracted from it (`text/markdown`). */
  readonly mime_type: 'text/plain' | 'text/markdown';
  readonly text: string;
}

export interface Sessions {
  listSessions(guru: string, request: ListSessionsRequest): Promise<SessionList>;
  getSession(guru: string, sessionId: string): Promise<SessionConversation>;
  deleteSession(guru: string, sessionId: string): Promise<DeletedSession>;
}

export interface SessionAttachments {
  /**
   * The `n`th attachment of the session (guru://{guru}/sessions/{id}/attachments/{n}). Not in the
   * spec's REST API: only a backend that holds the session's files (the local engine) has them.
   */
  sessionAttachment(guru: string, sessionId: string, n: number): Promise<SessionAttachment>;
}

export interface Crawling {
  /** Starts discovering the site under `url` (nothing is indexed); the crawl runs in the background. */
  startCrawl(guru: string, request: StartCrawlRequest): Promise<Crawl>;
  crawlStatus(guru: string, crawlId: number): Promise<Crawl>;
  stopCrawl(guru: string, crawlId: number): Promise<Crawl>;
}

export interface FollowUps {
  /**
   * Up to 3 questions a user would plausibly ask after an answer (named by
   * `question_slug`, or its question text), grounded in what the knowledge base
   * can answer. Made on the first call and stored: later calls say `cached: true`.
   */
  followUpExamples(guru: string, request: FollowUpRequest): Promise<FollowUpResponse>;
}

export interface Progress {
  /**
   * The progress line of the end user's latest answer: its stage while it is
   * written, the last stage after; empty with `updated_at` null when nothing was
   * reported in the last two minutes.
   */
  answerProgress(guru: string, query: AnswerProgressQuery): Promise<AnswerProgress>;
}

export interface Votes {
  /**
   * An end user's vote on an answer (its `slug`); it shows as the turn's
   * `user_vote`. The first vote stands: a second one is answered "Already voted".
   */
  recordVote(guru: string, request: RecordVoteRequest): Promise<RecordedVote>;
}

export interface SpeechOptions {
  /** Aborting stops the synthesis (and ends the stream). */
  readonly signal?: AbortSignal;
  /** 1 (default): the offline voice. 2: the speech provider, where the operator enabled it for the guru. */
  readonly version?: 1 | 2;
  /**
   * Who asks, for the cap on the texts one caller has read aloud at once (version 1): an opaque
   * name of the REST key. Without it the guru is the caller (MCP, the CLI).
   */
  readonly caller?: string;
}

export interface Speech {
  /**
   * The text read aloud as MP3, in chunks as it is synthesized. Resolves once
   * the first audio is ready: the spec's errors ("No text provided", "Error
   * generating speech stream"…) come before it; a failure after it ends the
   * iteration with an error.
   */
  textToSpeech(guru: string, request: TextToSpeechRequest, options?: SpeechOptions): Promise<AsyncIterable<Uint8Array>>;
}

/** Video URLs of a channel or playlist, for adding as sources. Not tied to a guru. */
export interface VideoLists {
  importChannel(request: ImportUrlRequest): Promise<ChannelImport>;
  importPlaylist(request: ImportUrlRequest): Promise<PlaylistImport>;
}

/** What a guru holds about one end user (an integration's `external_user_id`): reading, erasing, profiles. */
export interface EndUsers {
  /** One page of everything held about the end user in this guru; the profile on every page, memories on the first. */
  getEndUserData(guru: string, externalUserId: string, query: EndUserDataQuery): Promise<EndUserData>;
  /** Erases everything held about the end user in this guru, for good, and says how much of each kind went. */
  eraseEndUserData(guru: string, externalUserId: string): Promise<ErasedEndUserData>;
  /** Creates or replaces one profile per end user; a user that fails does not stop the others. */
  upsertProfiles(guru: string, request: UpsertProfilesRequest): Promise<UpsertProfilesResponse>;
}

/** The whole service, as the transports see it. */
export interface Assistant extends Answering, FollowUps, Progress, Searching, DataSources, Sessions, SessionAttachments, Votes, Crawling, VideoLists, EndUsers, Speech {
  /** Releases connections, timers and files. */
  close(): Promise<void>;
}

/**
 * Administration of the gurus themselves. Only a backend that owns its data
 * (the local engine) offers it; the hosted REST API has no such operations.
 */
export interface GuruAdmin {
  listGurus(): Promise<Guru[]>;
  createGuru(request: CreateGuruRequest): Promise<CreatedGuru>;
  createApiKey(slug: string): Promise<CreatedApiKey>;
  /** Deletes the guru with everything it holds, for good; its keys stop working. */
  deleteGuru(slug: string): Promise<DeletedGuru>;
  /** The slug of the guru this key belongs to, or undefined for an unknown key. */
  authenticate(apiKey: string): Promise<string | undefined>;

  /** Adds PDF, Word and Excel files as sources; a file of another kind is refused with the reason. */
  uploadDocuments(slug: string, files: readonly UploadFile[], options?: UploadOptions): Promise<UploadedDocument[]>;
  /** Sets (or replaces) the guru's credentials for Jira, Zendesk or Confluence. */
  setIntegration(slug: string, input: IntegrationInput): Promise<Integration>;
  listIntegrations(slug: string): Promise<Integration[]>;
  /** Returns whether there was one to remove. */
  removeIntegration(slug: string, kind: IntegrationKind): Promise<boolean>;
  /** The guru's settings: what the operator set, the defaults for the rest. */
  guruSettings(slug: string): Promise<GuruSettings>;
  /** Changes the fields the patch names and returns the settings as they now are. */
  updateGuruSettings(slug: string, patch: GuruSettingsPatch): Promise<GuruSettings>;
}

export interface UploadFile {
  readonly name: string;
  readonly data: Uint8Array;
}

export interface UploadOptions {
  /** Private documents are answered from but never linked or named to end users. */
  readonly private?: boolean;
  readonly labels?: readonly string[];
}

/** A backend as wired by the composition root. */
export interface Backend {
  readonly kind: 'local' | 'remote';
  readonly assistant: Assistant;
  /** Present for the local engine only. */
  readonly admin?: GuruAdmin;
  /** The guru used when a call names none, if one is configured. */
  readonly defaultGuru?: string;
}
