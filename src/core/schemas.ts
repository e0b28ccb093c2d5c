/**
 * The service contract: zod schemas of every resource, request and response of
 * `spec/service-api.md`, for all of its parts. Response schemas are loose objects
 * so that a hosted deployment may add fields without breaking the remote adapter;
 * request schemas validate what callers send. Each schema is built on its first
 * use (src/core/lazy-schema.ts): a process pays only for the schemas it needs.
 */
import * as z from 'zod';
import { lazySchema } from './lazy-schema.js';

// ---------------------------------------------------------------------------
// Shared pieces

/*
 * Caps on what callers send. Every free-text field and every list of a request
 * has one, so that no request costs more than its purpose needs: parsing it,
 * searching with it and storing it stay bounded whatever a caller sends. The
 * REST body caps (src/http/rest.ts) are sized to fit them.
 */

/** A question (ask, semantic search, follow-up examples). */
export const MAX_QUESTION_CHARS = 10_000;
/** Identifiers a caller passes: session ids, end-user ids, question slugs. */
export const MAX_ID_CHARS = 256;
/** One URL: a source, a crawl's start, a video list. */
export const MAX_URL_CHARS = 4096;
/** URLs of one kind in one request: a guru's whole web-page limit fits one request. */
export const MAX_URLS_PER_LIST = 1500;
/** Text sources in one request. */
export const MAX_TEXT_SOURCES = 1000;
/** The content of one text source. */
export const MAX_TEXT_SOURCE_CHARS = 5_000_000;
/** Source ids of one reindex request. */
export const MAX_REINDEX_IDS = 10_000;
/** Source ids of one delete request. */
export const MAX_DELETE_IDS = 10_000;
/** Text turned into speech at once. */
export const MAX_SPEECH_CHARS = 20_000;
/** Attachments of each kind (images, log files, PDFs) one question may carry: the highest per-guru count limit. */
export const MAX_ATTACHMENTS_PER_KIND = 20;
/** The highest per-guru size limit of one attachment (decoded bytes). */
export const MAX_ATTACHMENT_BYTES = 50_000_000;
/** One attachment's data: a file of the highest size limit, base64-encoded, with its data URL's prefix. */
export const MAX_ATTACHMENT_DATA_CHARS = Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4 + 1024;
/** File names and MIME types of attachments. */
const MAX_FILE_NAME_CHARS = 255;

/** A spec message for a missing field; other problems of the field are described as they are (src/core/validate.ts). */
const whenMissing = (message: string) => ({
  error: (issue: { readonly input?: unknown }) => (issue.input === undefined ? message : undefined),
});

/** A caller's identifier of something: a session, an end user, a question. */
export const Identifier = lazySchema(() => z.string().min(1).max(MAX_ID_CHARS));
/** A conversation session (binge) id. */
export const SessionId = Identifier;

/** A question in the user's words. Missing or blank, it gets the spec's message for that (semantic search's). */
const Question = lazySchema(() => z
  .string(whenMissing('Question is required'))
  .trim()
  .min(1, 'Question is required')
  .max(MAX_QUESTION_CHARS));

export const GuruSlug = lazySchema(() => z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'lowercase letters, digits and inner hyphens only'));
export type GuruSlug = z.infer<typeof GuruSlug>;

/** ISO 8601 timestamp as the service writes it. */
const Timestamp = lazySchema(() => z.string());

export const Reference = lazySchema(() => z.looseObject({
  link: z.string(),
  icon: z.string(),
  title: z.string(),
  /** Present and true only for attachments shown again on a follow-up turn. */
  inherited: z.boolean().optional(),
}));
export type Reference = z.infer<typeof Reference>;

// ---------------------------------------------------------------------------
// Gurus (local administration; not part of the hosted REST API)

export const Guru = lazySchema(() => z.object({
  slug: GuruSlug,
  name: z.string(),
  date_created: Timestamp,
}));
export type Guru = z.infer<typeof Guru>;

export const CreateGuruRequest = lazySchema(() => z.object({
  slug: GuruSlug,
  name: z.string().min(1).max(200).optional(),
}));
export type CreateGuruRequest = z.infer<typeof CreateGuruRequest>;

/** The API key appears in clear text here and nowhere else: it is stored only as a hash. */
export const CreatedGuru = lazySchema(() => z.object({ slug: GuruSlug, name: z.string(), api_key: z.string() }));
export type CreatedGuru = z.infer<typeof CreatedGuru>;

/** What deleting a guru removed: counts of its rows of each kind (local engine only). */
export const DeletedGuru = lazySchema(() => z.object({
  slug: GuruSlug,
  deleted: z.object({
    data_sources: z.number().int(),
    sessions: z.number().int(),
    questions: z.number().int(),
    crawls: z.number().int(),
    api_keys: z.number().int(),
  }),
}));
export type DeletedGuru = z.infer<typeof DeletedGuru>;

export const CreatedApiKey = lazySchema(() => z.object({ slug: GuruSlug, api_key: z.string() }));
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

/** How many attachments of one kind a question may carry, and how large each may be (decoded). */
export const AttachmentLimit = lazySchema(() => z.strictObject({
  count: z.number().int().min(0).max(MAX_ATTACHMENTS_PER_KIND),
  max_bytes: z.number().int().min(1).max(MAX_ATTACHMENT_BYTES),
}));
export type AttachmentLimit = z.infer<typeof AttachmentLimit>;

export const AttachmentKind = lazySchema(() => z.enum(['images', 'log_files', 'pdf_files']));
export type AttachmentKind = z.infer<typeof AttachmentKind>;

/** What the operator sets per guru. Stored as the fields set; the rest come from the defaults. */
export const GuruSettings = lazySchema(() => z.strictObject({
  /** Added to the language model's instructions (tone, product name); '' for none. */
  model_instructions: z.string().max(4000),
  /** Whether answers use the configured language model (GURU_LLM_URL) at all. */
  use_model: z.boolean(),
  /** Whether the guru speaks through the speech provider (text-to-speech version 2). */
  speech_provider: z.boolean(),
  attachment_limits: z.strictObject({ images: AttachmentLimit, log_files: AttachmentLimit, pdf_files: AttachmentLimit }),
}));
export type GuruSettings = z.infer<typeof GuruSettings>;

export const GuruSettingsPatch = lazySchema(() => z.strictObject({
  model_instructions: GuruSettings.shape.model_instructions.optional(),
  use_model: GuruSettings.shape.use_model.optional(),
  speech_provider: GuruSettings.shape.speech_provider.optional(),
  attachment_limits: z
    .strictObject({
      images: AttachmentLimit.partial().optional(),
      log_files: AttachmentLimit.partial().optional(),
      pdf_files: AttachmentLimit.partial().optional(),
    })
    .optional(),
}));
export type GuruSettingsPatch = z.infer<typeof GuruSettingsPatch>;

// ---------------------------------------------------------------------------
// Ask question

const FileName = lazySchema(() => z.string().max(MAX_FILE_NAME_CHARS));

const Base64Attachment = lazySchema(() => z.object({
  data: z
    .string()
    .max(MAX_ATTACHMENT_DATA_CHARS)
    .regex(/^data:[^;,]+;base64,/, 'Images and PDFs must be data URLs: data:<mime>;base64,<payload>'),
  name: FileName,
  type: z.string().max(MAX_FILE_NAME_CHARS),
}));

const LogFile = lazySchema(() => z.object({ data: z.string().max(MAX_ATTACHMENT_DATA_CHARS), name: FileName }));

const Attachments = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_ATTACHMENTS_PER_KIND);

export const AskRequest = lazySchema(() => z.object({
  question: Question,
  stream: z.boolean().default(false),
  session_id: SessionId.optional(),
  external_user_id: Identifier.optional(),
  fetch_existing: z.boolean().default(false),
  images: Attachments(Base64Attachment).optional(),
  log_files: Attachments(LogFile).optional(),
  pdf_files: Attachments(Base64Attachment).optional(),
}));
export type AskRequest = z.infer<typeof AskRequest>;

/** The question and its options, without the transport's `stream` switch: what the port takes. */
export const AskInput = lazySchema(() => AskRequest.omit({ stream: true }));
export type AskInput = z.infer<typeof AskInput>;

export const Answer = lazySchema(() => z.looseObject({
  slug: z.string(),
  content: z.string(),
  question: z.string(),
  date_updated: z.string(),
  trust_score: z.number().min(0).max(100),
  references: z.array(Reference),
  session_id: z.string(),
  question_url: z.string(),
  can_receive_feedback: z.boolean(),
  /** Set when images or log files over the guru's limits were skipped. */
  attachment_note: z.string().optional(),
}));
export type Answer = z.infer<typeof Answer>;

// ---------------------------------------------------------------------------
// Follow-up examples

export const FollowUpRequest = lazySchema(() => z
  .object({
    question_slug: Identifier.optional(),
    question: z.string().trim().min(1).max(MAX_QUESTION_CHARS).optional(),
    binge_id: SessionId.optional(),
  })
  .refine((body) => body.question_slug !== undefined || body.question !== undefined, {
    message: 'Question slug or question text is required',
  }));
export type FollowUpRequest = z.infer<typeof FollowUpRequest>;

export const FollowUpResponse = lazySchema(() => z.looseObject({
  follow_up_examples: z.array(z.string()),
  question_slug: z.string(),
  cached: z.boolean(),
}));
export type FollowUpResponse = z.infer<typeof FollowUpResponse>;

// ---------------------------------------------------------------------------
// Text to speech (both versions take the same body and answer with MP3 audio)

export const TextToSpeechRequest = lazySchema(() => z.object({
  text: z.string(whenMissing('No text provided')).min(1, 'No text provided').max(MAX_SPEECH_CHARS),
}));
export type TextToSpeechRequest = z.infer<typeof TextToSpeechRequest>;

// ---------------------------------------------------------------------------
// Semantic search

/**
 * Labels are plain strings. Every source carries its type label (`Text`,
 * `Website`, ...) plus any labels given when it was added; matching ignores case.
 */
export const Label = lazySchema(() => z.string().min(1).max(100));
/** The labels of one request: to filter a search by, or to attach to new sources. */
export const Labels = lazySchema(() => z.array(Label).max(20));

export const SemanticSearchRequest = lazySchema(() => z.object({
  question: Question,
  labels: Labels.optional(),
  external_user_id: Identifier.optional(),
}));
export type SemanticSearchRequest = z.infer<typeof SemanticSearchRequest>;

export const SearchSource = lazySchema(() => z.looseObject({
  title: z.string(),
  link: z.string().nullable(),
  display_link: z.boolean(),
  icon_url: z.string(),
  labels: z.array(z.string()),
}));
export type SearchSource = z.infer<typeof SearchSource>;

export const SemanticSearchResponse = lazySchema(() => z.looseObject({
  sources: z.array(SearchSource).max(10),
  total_sources: z.number().int(),
  /** Our extension: `hybrid` when vector similarity took part in the ranking, else `lexical`. */
  search_mode: z.enum(['lexical', 'hybrid']).optional(),
}));
export type SemanticSearchResponse = z.infer<typeof SemanticSearchResponse>;

// ---------------------------------------------------------------------------
// Data sources

export const DataSourceStatus = lazySchema(() => z.enum(['NOT_PROCESSED', 'SUCCESS', 'FAIL']));
export type DataSourceStatus = z.infer<typeof DataSourceStatus>;

/** Type values of the listing. The spec documents PDF, WEBSITE, YOUTUBE; the rest are ours. */
export const DataSourceType = lazySchema(() => z.enum([
  'PDF',
  'WEBSITE',
  'YOUTUBE',
  'JIRA',
  'ZENDESK',
  'CONFLUENCE',
  'TEXT',
  'WORD',
  'EXCEL',
]));
export type DataSourceType = z.infer<typeof DataSourceType>;

/** Type values of the creation result, as the spec spells them. */
export const CreatedSourceType = lazySchema(() => z.enum(['Website', 'YouTube', 'Jira', 'Zendesk', 'Confluence', 'Text']));
export type CreatedSourceType = z.infer<typeof CreatedSourceType>;

export const TextSourceInput = lazySchema(() => z.object({
  name: z.string().trim().min(1).max(500),
  content: z.string().min(1).max(MAX_TEXT_SOURCE_CHARS),
}));
export type TextSourceInput = z.infer<typeof TextSourceInput>;

/** One URL as a caller writes it; whether it is a usable URL is checked where it is used. */
export const UrlText = lazySchema(() => z.string().min(1).max(MAX_URL_CHARS));
/** The URLs of one kind in a create request. */
export const UrlList = lazySchema(() => z.array(UrlText).max(MAX_URLS_PER_LIST));

export const CreateDataSourcesRequest = lazySchema(() => z
  .object({
    youtube_urls: UrlList.optional(),
    website_urls: UrlList.optional(),
    zendesk_urls: UrlList.optional(),
    jira_urls: UrlList.optional(),
    confluence_urls: UrlList.optional(),
    text_sources: z.array(TextSourceInput).max(MAX_TEXT_SOURCES).optional(),
    /** Our extension: labels attached to every source of this request. */
    labels: Labels.optional(),
  })
  .refine(
    (body) =>
      [body.youtube_urls, body.website_urls, body.zendesk_urls, body.jira_urls, body.confluence_urls, body.text_sources].some(
        (list) => list !== undefined && list.length > 0,
      ),
    { message: 'at least one of youtube_urls, website_urls, zendesk_urls, jira_urls, confluence_urls, text_sources is required' },
  ));
export type CreateDataSourcesRequest = z.infer<typeof CreateDataSourcesRequest>;

export const CreatedDataSource = lazySchema(() => z.looseObject({
  type: CreatedSourceType,
  url: z.string().optional(),
  status: z.string(), // `success` | `exists` documented
  id: z.number().int(),
  title: z.string().nullable(),
  content: z.string().optional(),
}));
export type CreatedDataSource = z.infer<typeof CreatedDataSource>;

export const DataSource = lazySchema(() => z.looseObject({
  id: z.number().int(),
  type: z.string(),
  url: z.string().optional(),
  title: z.string().nullable(),
  status: DataSourceStatus,
  error: z.string(),
  date_created: Timestamp,
  private: z.boolean(),
  last_reindex_date: Timestamp,
  reindex_count: z.number().int(),
  /** Ours (the search results' field): the type label first, then those given when it was added. */
  labels: z.array(z.string()).optional(),
}));
export type DataSource = z.infer<typeof DataSource>;

export const MAX_SOURCE_PAGE_SIZE = 1000;

export const ListDataSourcesQuery = lazySchema(() => z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(MAX_SOURCE_PAGE_SIZE).default(MAX_SOURCE_PAGE_SIZE),
}));
export type ListDataSourcesQuery = z.infer<typeof ListDataSourcesQuery>;

/** The REST listing body. `next` and `previous` are URLs (relative, unless the server knows its public URL) or null. */
export const DataSourceListResponse = lazySchema(() => z.looseObject({
  count: z.number().int(),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(DataSource),
}));
export type DataSourceListResponse = z.infer<typeof DataSourceListResponse>;

export const ReindexRequest = lazySchema(() => z.object({ ids: z.array(z.number().int().positive()).min(1).max(MAX_REINDEX_IDS) }));
export type ReindexRequest = z.infer<typeof ReindexRequest>;

/**
 * Sources to delete, by id (DESIGN.md: `DELETE {guru}/data-sources/`). Ids that are not sources
 * of the guru are passed over, as the hosted service does: deleting twice is harmless.
 */
export const DeleteDataSourcesRequest = lazySchema(() => z.object({ ids: z.array(z.number().int().positive()).min(1).max(MAX_DELETE_IDS) }));
export type DeleteDataSourcesRequest = z.infer<typeof DeleteDataSourcesRequest>;

export const MessageResponse = lazySchema(() => z.looseObject({ msg: z.string() }));
export type MessageResponse = z.infer<typeof MessageResponse>;

// ---------------------------------------------------------------------------
// Sessions (binges)

const PAGE_NUMBER_MESSAGE = 'Page number must be an integer';

export const ListSessionsRequest = lazySchema(() => z.object({
  page_num: z
    .number({ error: PAGE_NUMBER_MESSAGE })
    .int({ error: PAGE_NUMBER_MESSAGE })
    .positive({ error: PAGE_NUMBER_MESSAGE })
    .default(1),
  search_query: z.string().max(500).default(''),
  external_user_id: Identifier.optional(),
}));
export type ListSessionsRequest = z.infer<typeof ListSessionsRequest>;

export const SessionSummary = lazySchema(() => z.looseObject({
  id: z.string(),
  last_used: Timestamp,
  guru_type_slug: z.string(),
  guru_type_name: z.string(),
  root_question_name: z.string(),
  root_question_slug: z.string(),
  root_question_link: z.string(),
}));
export type SessionSummary = z.infer<typeof SessionSummary>;

export const SessionList = lazySchema(() => z.looseObject({
  today: z.array(SessionSummary),
  last_week: z.array(SessionSummary),
  older: z.array(SessionSummary),
  has_more: z.boolean(),
}));
export type SessionList = z.infer<typeof SessionList>;

export const Vote = lazySchema(() => z.enum(['upvote', 'downvote']));
export type Vote = z.infer<typeof Vote>;

export const ConversationTurn = lazySchema(() => z.looseObject({
  id: z.string(),
  slug: z.string(),
  user_question: z.string(),
  question: z.string(),
  answer: z.string(),
  date_created: Timestamp,
  date_updated: Timestamp,
  references: z.array(Reference),
  trust_score: z.number(),
  parent_slug: z.string().nullable(),
  source: z.string(),
  user_vote: Vote.nullable(),
  /**
   * Our extension, as on the Answer: false for a declined answer or a simple interaction, which
   * takes no vote (and is not read aloud by the web interface). Optional: the spec's turn lacks it.
   */
  can_receive_feedback: z.boolean().optional(),
}));
export type ConversationTurn = z.infer<typeof ConversationTurn>;

export const SessionConversation = lazySchema(() => z.looseObject({
  binge_id: z.string(),
  root_question_slug: z.string(),
  date_created: Timestamp,
  last_used: Timestamp,
  conversation: z.array(ConversationTurn),
}));
export type SessionConversation = z.infer<typeof SessionConversation>;

export const DeletedSession = lazySchema(() => z.looseObject({ msg: z.string(), session_id: z.string() }));
export type DeletedSession = z.infer<typeof DeletedSession>;

// ---------------------------------------------------------------------------
// Crawling

export const CrawlStatus = lazySchema(() => z.enum(['RUNNING', 'COMPLETED', 'STOPPED', 'FAILED']));
export type CrawlStatus = z.infer<typeof CrawlStatus>;

export const StartCrawlRequest = lazySchema(() => z.object({
  /** Missing or not text: the spec's one message for a start URL; its form is checked by the crawler. */
  url: z.string({ error: (issue) => (issue.code === 'invalid_type' ? 'Invalid URL format' : undefined) }).max(MAX_URL_CHARS),
  ignore_query_params: z.boolean().default(true),
}));
export type StartCrawlRequest = z.infer<typeof StartCrawlRequest>;

export const Crawl = lazySchema(() => z.looseObject({
  id: z.number().int(),
  url: z.string(),
  status: CrawlStatus,
  guru_type: z.string(),
  discovered_urls: z.array(z.string()),
  start_time: Timestamp,
  end_time: Timestamp.nullable(),
  link_limit: z.number().int(),
  ignore_query_params: z.boolean(),
  /** Only on the status endpoint, only when the crawl failed or was cut short. */
  error_message: z.string().optional(),
}));
export type Crawl = z.infer<typeof Crawl>;

// ---------------------------------------------------------------------------
// Video-list import

export const ImportUrlRequest = lazySchema(() => z.object({
  url: z
    .string(whenMissing('URL is required'))
    .trim()
    .min(1, 'URL is required')
    .max(MAX_URL_CHARS),
}));
export type ImportUrlRequest = z.infer<typeof ImportUrlRequest>;

export const ChannelImport = lazySchema(() => z.looseObject({
  channel_identifier: z.string(),
  identifier_type: z.enum(['channel_id', 'username']),
  video_count: z.number().int(),
  videos: z.array(z.string()),
}));
export type ChannelImport = z.infer<typeof ChannelImport>;

export const PlaylistImport = lazySchema(() => z.looseObject({
  playlist_id: z.string(),
  video_count: z.number().int(),
  videos: z.array(z.string()),
}));
export type PlaylistImport = z.infer<typeof PlaylistImport>;

// ---------------------------------------------------------------------------
// End-user data

/** Records skipped per collection at most: far past any end user's history, and a bound on the work. */
export const MAX_END_USER_OFFSET = 1_000_000;

export const EndUserDataQuery = lazySchema(() => z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).max(MAX_END_USER_OFFSET).default(0),
}));
export type EndUserDataQuery = z.infer<typeof EndUserDataQuery>;

export const EndUserData = lazySchema(() => z.looseObject({
  external_user_id: z.string(),
  data: z.looseObject({
    questions: z.array(
      z.looseObject({
        slug: z.string(),
        question: z.string(),
        user_question: z.string(),
        content: z.string(),
        source: z.string(),
        date_created: Timestamp,
      }),
    ),
    /** The questions the guru declined (DESIGN.md): why, in `reason`. */
    rejected_questions: z.array(
      z.looseObject({ slug: z.string(), question: z.string(), user_question: z.string(), date_created: Timestamp, reason: z.string() }),
    ),
    conversations: z.array(z.looseObject({ id: z.string(), date_created: Timestamp, last_used: Timestamp })),
    searches: z.array(z.looseObject({ query: z.string(), selected_labels: z.array(z.string()), date_created: Timestamp })),
    profile: z.array(
      z.looseObject({ profile_data: z.record(z.string(), z.unknown()), created_at: Timestamp, updated_at: Timestamp }),
    ),
    memories: z.array(z.looseObject({ memory: z.string() })),
    page: z.looseObject({
      limit: z.number().int(),
      offset: z.number().int(),
      has_more: z.looseObject({
        questions: z.boolean(),
        rejected_questions: z.boolean(),
        conversations: z.boolean(),
        searches: z.boolean(),
      }),
    }),
  }),
}));
export type EndUserData = z.infer<typeof EndUserData>;

/** Records of each kind an erase removed. */
export const ErasedCounts = lazySchema(() => z.looseObject({
  questions: z.number().int(),
  rejected_questions: z.number().int(),
  conversations: z.number().int(),
  searches: z.number().int(),
  profile: z.number().int(),
  memories: z.number().int(),
  /** Log files and PDFs attached to the erased questions (this server's; not every service reports it). */
  attachments: z.number().int().optional(),
}));
export type ErasedCounts = z.infer<typeof ErasedCounts>;

export const ErasedEndUserData = lazySchema(() => z.looseObject({
  external_user_id: z.string(),
  deleted: ErasedCounts,
}));
export type ErasedEndUserData = z.infer<typeof ErasedEndUserData>;

// ---------------------------------------------------------------------------
// Profiles

/** Profiles one upsert request may carry. */
export const MAX_PROFILES_PER_REQUEST = 1000;
/** One profile's `memory`, as JSON in UTF-8. */
export const MAX_PROFILE_BYTES = 16 * 1024;

/** Each user is checked on its own (a bad one fails alone, in `users_results`), so its members are not typed here. */
export const UpsertProfilesRequest = lazySchema(() => z.object({
  users: z
    .array(
      z.object({
        external_user_id: z.unknown().optional(),
        memory: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(MAX_PROFILES_PER_REQUEST),
}));
export type UpsertProfilesRequest = z.infer<typeof UpsertProfilesRequest>;

export const UserResult = lazySchema(() => z.looseObject({
  user_index: z.number().int(),
  external_user_id: z.string(),
  success: z.boolean(),
  errors: z.array(z.string()),
}));
export type UserResult = z.infer<typeof UserResult>;

export const UpsertProfilesResponse = lazySchema(() => z.looseObject({
  status: z.string(),
  total_users: z.number().int(),
  processed_users: z.number().int(),
  users_results: z.array(UserResult),
}));
export type UpsertProfilesResponse = z.infer<typeof UpsertProfilesResponse>;

// ---------------------------------------------------------------------------
// Answer progress

/** The query of an answer-progress poll: whose line (the `external_user_id` the answer was asked with). */
export const AnswerProgressQuery = lazySchema(() => z.object({ external_user_id: z.string().trim().min(1).max(MAX_ID_CHARS) }));
export type AnswerProgressQuery = z.infer<typeof AnswerProgressQuery>;

export const AnswerProgress = lazySchema(() => z.looseObject({
  status_text: z.string(),
  /** Unix seconds as a float; null together with an empty line. */
  updated_at: z.number().nullable(),
}));
export type AnswerProgress = z.infer<typeof AnswerProgress>;

// ---------------------------------------------------------------------------
// Votes

/** Feedback of a vote, in characters (code points, so that any script gets the same room). */
export const MAX_VOTE_FEEDBACK = 200;

export const RecordVoteRequest = lazySchema(() => z.object({
  /** The `slug` of the answer voted on. */
  content_slug: Identifier,
  binge_id: SessionId.optional(),
  vote_type: Vote,
  feedback: z
    .string()
    .refine((text) => [...text].length <= MAX_VOTE_FEEDBACK, `feedback must be at most ${MAX_VOTE_FEEDBACK} characters`)
    .optional(),
}));
export type RecordVoteRequest = z.infer<typeof RecordVoteRequest>;

/** A vote taken: the vote and its feedback (null without any). */
export const VoteTaken = lazySchema(() => z.looseObject({ vote: Vote, feedback: z.string().nullable() }));
/** A second vote on the same answer: refused politely, with the vote that stands. */
export const AlreadyVoted = lazySchema(() => z.looseObject({ msg: z.literal('Already voted'), vote: Vote }));
export const RecordedVote = lazySchema(() => z.union([AlreadyVoted, VoteTaken]));
export type RecordedVote = z.infer<typeof RecordedVote>;

// ---------------------------------------------------------------------------
// Integrations and uploads (local administration; not part of the hosted REST API)

export const IntegrationKind = lazySchema(() => z.enum(['jira', 'zendesk', 'confluence']));
export type IntegrationKind = z.infer<typeof IntegrationKind>;

/** A guru's credentials for one integration. Zendesk's API tokens always go with an agent's email. */
export const IntegrationInput = lazySchema(() => z
  .object({
    kind: IntegrationKind,
    base_url: z.url({ protocol: /^https?$/ }).max(2048),
    email: z.email().max(254).optional(),
    token: z.string().min(1).max(4096),
  })
  .refine((input) => input.kind !== 'zendesk' || input.email !== undefined, {
    message: 'Zendesk API tokens need the email of the agent they belong to',
    path: ['email'],
  }));
export type IntegrationInput = z.infer<typeof IntegrationInput>;

/** An integration as listed: never with its token. */
export const Integration = lazySchema(() => z.object({
  kind: IntegrationKind,
  base_url: z.string(),
  email: z.string().nullable(),
  date_created: Timestamp,
}));
export type Integration = z.infer<typeof Integration>;

export const DocumentType = lazySchema(() => z.enum(['PDF', 'WORD', 'EXCEL']));
export type DocumentType = z.infer<typeof DocumentType>;

/** What an uploaded file became: a document, or a text (HTML, Markdown, plain text). */
export const UploadedType = lazySchema(() => z.enum(['PDF', 'WORD', 'EXCEL', 'TEXT']));
export type UploadedType = z.infer<typeof UploadedType>;

/**
 * What became of one uploaded file: a source (processed asynchronously; `exists` when a file of
 * that name was already added with the same text), or a refusal saying why.
 */
export const UploadedDocument = lazySchema(() => z.union([
  z.object({ name: z.string(), status: z.enum(['success', 'exists']), id: z.number().int(), type: UploadedType, title: z.string(), private: z.boolean() }),
  z.object({ name: z.string(), status: z.literal('refused'), error: z.string() }),
]));
export type UploadedDocument = z.infer<typeof UploadedDocument>;
