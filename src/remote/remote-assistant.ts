/**
 * The remote backend: the Assistant port over the spec's REST API, for a
 * hosted deployment of the service or another `guru-mcp serve`. Each method is
 * one endpoint (two for a streamed answer); responses are checked against the
 * core schemas, and the service's errors come back as the same GuruErrors.
 *
 * The key decides which guru a call reaches. The session endpoints carry no
 * guru in their path, so there the key alone decides.
 */
import type { Assistant, AskInput, AskOptions, DataSourcePage, SessionAttachment, SpeechOptions } from '../core/assistant.js';
import { Errors } from '../core/errors.js';
import {
  Answer,
  AnswerProgress,
  ChannelImport,
  Crawl,
  CreatedDataSource,
  DataSourceListResponse,
  DeletedSession,
  FollowUpResponse,
  EndUserData,
  ErasedEndUserData,
  MessageResponse,
  PlaylistImport,
  RecordedVote,
  SemanticSearchResponse,
  SessionConversation,
  SessionList,
  UpsertProfilesResponse,
} from '../core/schemas.js';
import type {
  AnswerProgressQuery,
  CreateDataSourcesRequest,
  FollowUpRequest,
  ListDataSourcesQuery,
  ImportUrlRequest,
  ListSessionsRequest,
  RecordVoteRequest,
  ReindexRequest,
  DeleteDataSourcesRequest,
  SemanticSearchRequest,
  StartCrawlRequest,
  EndUserDataQuery,
  UpsertProfilesRequest,
  TextToSpeechRequest,
} from '../core/schemas.js';
import { silentLogger, type Logger } from '../log.js';
import { pathOf, type Endpoint } from './endpoint.js';
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUTS, type RetryPolicy, type Timeouts } from './policy.js';
import { RestClient, type ApiKey, type CallOptions } from './rest-client.js';

export interface RemoteAssistantOptions {
  /** Base URL of the API, version segment included: `https://api.gurubase.io/api/v1`. */
  readonly baseUrl: string;
  readonly apiKey: ApiKey;
  readonly logger?: Logger;
  readonly timeouts?: Partial<Timeouts>;
  readonly retry?: Partial<RetryPolicy>;
}

const CreatedDataSources = CreatedDataSource.array();

export class RemoteAssistant implements Assistant {
  readonly #client: RestClient;

  constructor(options: RemoteAssistantOptions) {
    this.#client = new RestClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      logger: options.logger ?? silentLogger,
      timeouts: { ...DEFAULT_TIMEOUTS, ...options.timeouts },
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    });
  }

  /**
   * Without `onText`, one call. With it, the spec's flow: ask with `stream: true`
   * and pass the text on as it arrives, then repeat the question with
   * `fetch_existing: true` to get the stored answer's references, trust score and
   * session id.
   */
  async ask(guru: string, input: AskInput, options: AskOptions = {}): Promise<Answer> {
    const endpoint: Endpoint = { operation: 'ask', method: 'POST', path: pathOf(guru, 'answer'), idempotent: false, guru };
    const call: CallOptions = {
      signal: options.signal,
      onThrottle: (seconds) => options.onStage?.(`Rate limited by the service; retrying in ${seconds} s`),
    };
    if (options.onText === undefined) {
      return this.#client.json(endpoint, Answer, { ...call, body: { ...input, stream: false } });
    }
    await this.#client.stream(endpoint, options.onText, { ...call, body: { ...input, stream: true } });
    const fetchExisting = {
      question: input.question,
      session_id: input.session_id,
      external_user_id: input.external_user_id,
      fetch_existing: true,
      stream: false,
    };
    return this.#client.json(endpoint, Answer, { ...call, body: fetchExisting });
  }

  async followUpExamples(guru: string, request: FollowUpRequest): Promise<FollowUpResponse> {
    // The first call stores the examples and later ones return them: safe to send again.
    const endpoint: Endpoint = { operation: 'follow_up', method: 'POST', path: pathOf(guru, 'follow-up', 'examples'), idempotent: true, guru };
    return this.#client.json(endpoint, FollowUpResponse, { body: request });
  }

  async answerProgress(guru: string, query: AnswerProgressQuery): Promise<AnswerProgress> {
    const endpoint: Endpoint = { operation: 'answer_progress', method: 'GET', path: pathOf(guru, 'answer-progress'), idempotent: true, guru };
    // Sent as given; a missing id stays missing, for the service to refuse, rather than becoming "undefined".
    const user: unknown = query.external_user_id;
    return this.#client.json(endpoint, AnswerProgress, { query: typeof user === 'string' ? { external_user_id: user } : {} });
  }

  /** The service's MP3 stream, passed on as it arrives. Reading the text aloud again is safe. */
  async textToSpeech(guru: string, request: TextToSpeechRequest, options: SpeechOptions = {}): Promise<AsyncIterable<Uint8Array>> {
    const path = pathOf(guru, options.version === 2 ? 'text-to-speech-v2' : 'text-to-speech', 'stream');
    const endpoint: Endpoint = { operation: 'text_to_speech', method: 'POST', path, idempotent: true, guru };
    return this.#client.bytes(endpoint, { body: request, signal: options.signal });
  }

  async semanticSearch(guru: string, request: SemanticSearchRequest): Promise<SemanticSearchResponse> {
    const endpoint: Endpoint = { operation: 'semantic_search', method: 'POST', path: pathOf(guru, 'semantic-search'), idempotent: true, guru };
    return this.#client.json(endpoint, SemanticSearchResponse, { body: request });
  }

  async createDataSources(guru: string, request: CreateDataSourcesRequest): Promise<CreatedDataSource[]> {
    const endpoint: Endpoint = { operation: 'create_sources', method: 'POST', path: pathOf(guru, 'data-sources'), idempotent: false, guru };
    return this.#client.json(endpoint, CreatedDataSources, { body: request });
  }

  async listDataSources(guru: string, query: ListDataSourcesQuery): Promise<DataSourcePage> {
    const endpoint: Endpoint = { operation: 'list_sources', method: 'GET', path: pathOf(guru, 'data-sources'), idempotent: true, guru };
    const listing = await this.#client.json(endpoint, DataSourceListResponse, { query: { page: query.page, page_size: query.page_size } });
    return { count: listing.count, page: query.page, page_size: query.page_size, results: listing.results };
  }

  async reindexDataSources(guru: string, request: ReindexRequest): Promise<MessageResponse> {
    // Queuing the same sources again twice is harmless: safe to retry.
    const endpoint: Endpoint = { operation: 'reindex_sources', method: 'POST', path: pathOf(guru, 'data-sources', 'reindex'), idempotent: true, guru };
    return this.#client.json(endpoint, MessageResponse, { body: request });
  }

  async deleteDataSources(guru: string, request: DeleteDataSourcesRequest): Promise<MessageResponse> {
    // Ids already deleted are passed over: sending the same delete again is harmless.
    const endpoint: Endpoint = { operation: 'delete_sources', method: 'DELETE', path: pathOf(guru, 'data-sources'), idempotent: true, guru };
    return this.#client.json(endpoint, MessageResponse, { body: request });
  }

  async listSessions(guru: string, request: ListSessionsRequest): Promise<SessionList> {
    const endpoint: Endpoint = { operation: 'list_sessions', method: 'POST', path: pathOf(guru, 'sessions'), idempotent: true, guru };
    return this.#client.json(endpoint, SessionList, { body: request });
  }

  async getSession(guru: string, sessionId: string): Promise<SessionConversation> {
    if (sessionId.trim() === '') throw Errors.invalidRequest('get_session', 'the session id is empty');
    const endpoint: Endpoint = {
      operation: 'get_session',
      method: 'POST',
      path: pathOf('sessions', sessionId, 'conversation'),
      idempotent: true,
      guru,
    };
    return this.#client.json(endpoint, SessionConversation);
  }

  async deleteSession(guru: string, sessionId: string): Promise<DeletedSession> {
    if (sessionId.trim() === '') throw Errors.invalidRequest('delete_session', 'the session id is empty');
    const endpoint: Endpoint = {
      operation: 'delete_session',
      method: 'DELETE',
      path: pathOf('sessions', sessionId, 'delete'),
      // A repeated delete answers "already deleted" instead of the deleted id: not safe to send twice.
      idempotent: false,
      guru,
    };
    return this.#client.json(endpoint, DeletedSession);
  }

  /** The spec's REST API has no read of a session's attachments: the hosted service's files stay there. */
  async sessionAttachment(_guru: string, _sessionId: string, _n: number): Promise<SessionAttachment> {
    throw Errors.attachmentNotFound("The service's REST API does not serve the files attached to its sessions; they are readable only where the session is stored.");
  }

  async recordVote(guru: string, request: RecordVoteRequest): Promise<RecordedVote> {
    // Sent again after a lost response, a vote would come back "Already voted": not safe to repeat.
    const endpoint: Endpoint = { operation: 'record_vote', method: 'POST', path: pathOf(guru, 'record_vote'), idempotent: false, guru };
    return this.#client.json(endpoint, RecordedVote, { body: request });
  }

  async startCrawl(guru: string, request: StartCrawlRequest): Promise<Crawl> {
    const endpoint: Endpoint = { operation: 'start_crawl', method: 'POST', path: pathOf(guru, 'crawl', 'start'), idempotent: false, guru };
    return this.#client.json(endpoint, Crawl, { body: request });
  }

  async crawlStatus(guru: string, crawlId: number): Promise<Crawl> {
    const endpoint: Endpoint = { operation: 'crawl_status', method: 'GET', path: pathOf(guru, 'crawl', String(crawlId), 'status'), idempotent: true, guru };
    return this.#client.json(endpoint, Crawl);
  }

  async stopCrawl(guru: string, crawlId: number): Promise<Crawl> {
    // Stopping a stopped crawl answers the same crawl: safe to retry.
    const endpoint: Endpoint = { operation: 'stop_crawl', method: 'POST', path: pathOf(guru, 'crawl', String(crawlId), 'stop'), idempotent: true, guru };
    return this.#client.json(endpoint, Crawl);
  }

  async importChannel(request: ImportUrlRequest): Promise<ChannelImport> {
    const endpoint: Endpoint = { operation: 'import_channel', method: 'POST', path: pathOf('youtube', 'channel'), idempotent: true };
    return this.#client.json(endpoint, ChannelImport, { body: request });
  }

  async importPlaylist(request: ImportUrlRequest): Promise<PlaylistImport> {
    const endpoint: Endpoint = { operation: 'import_playlist', method: 'POST', path: pathOf('youtube', 'playlist'), idempotent: true };
    return this.#client.json(endpoint, PlaylistImport, { body: request });
  }

  async getEndUserData(guru: string, externalUserId: string, query: EndUserDataQuery): Promise<EndUserData> {
    const endpoint: Endpoint = {
      operation: 'enduser_data',
      method: 'GET',
      path: pathOf(guru, 'end-users', externalUserId, 'data'),
      idempotent: true,
      guru,
    };
    return this.#client.json(endpoint, EndUserData, { query: { limit: query.limit, offset: query.offset } });
  }

  async eraseEndUserData(guru: string, externalUserId: string): Promise<ErasedEndUserData> {
    const endpoint: Endpoint = {
      operation: 'erase_enduser_data',
      method: 'DELETE',
      path: pathOf(guru, 'end-users', externalUserId, 'data'),
      // Sent again, it ends in the same state (nothing held); only its counts are then zero.
      idempotent: true,
      guru,
    };
    return this.#client.json(endpoint, ErasedEndUserData);
  }

  async upsertProfiles(guru: string, request: UpsertProfilesRequest): Promise<UpsertProfilesResponse> {
    // The spec makes upserting idempotent: a retry creates no duplicates.
    const endpoint: Endpoint = { operation: 'upsert_profiles', method: 'POST', path: pathOf(guru, 'profiles'), idempotent: true, guru };
    return this.#client.json(endpoint, UpsertProfilesResponse, { body: request });
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}
