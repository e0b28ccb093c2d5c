/**
 * The error catalogue of `spec/service-api.md` (its Errors table plus the
 * decisions of DESIGN.md) and the one error type that carries a message, an
 * HTTP status and the body field it travels in.
 *
 * Every operation names its own wording for the shared failures (bad key,
 * throttling, unknown guru, invalid body); the table below is that wording.
 */

export type Operation =
  | 'ask'
  | 'follow_up'
  | 'text_to_speech'
  | 'semantic_search'
  | 'create_sources'
  | 'list_sources'
  | 'reindex_sources'
  | 'delete_sources'
  | 'list_sessions'
  | 'get_session'
  | 'delete_session'
  | 'start_crawl'
  | 'crawl_status'
  | 'stop_crawl'
  | 'import_channel'
  | 'import_playlist'
  | 'enduser_data'
  | 'erase_enduser_data'
  | 'answer_progress'
  | 'upsert_profiles'
  | 'record_vote'
  | 'admin';

/** The JSON body field an error message travels in. */
export type BodyField = 'msg' | 'error';

interface OperationWording {
  /** Field used by this operation's errors unless a specific error says otherwise. */
  readonly field: BodyField;
  /** Field of the "Invalid API key" and throttling bodies, where it differs. */
  readonly authField?: BodyField;
  readonly throttled: (seconds: number) => string;
  readonly guruNotFound: (slug: string) => string;
  readonly guruNotFoundStatus: number;
  /** The spec's message for a request it cannot take. */
  readonly invalidRequest: string;
  /**
   * How a message that names the problem of a request is made. `prefixed`: the
   * spec's message is generic ("Invalid request parameters"), the problem follows
   * it. `own`: the spec's message names one problem ("Question is required"; the
   * schemas use it for exactly that problem), so any other problem is said in its
   * own words instead of being passed off as that one.
   */
  readonly problemWording: 'prefixed' | 'own';
  /** A valid key of another, existing guru: "Forbidden" where the spec lists it, else "Invalid API key". */
  readonly otherGurusKey: 'forbidden' | 'invalid_key';
}

const throttledWithSeconds = (seconds: number) => `Request was throttled. Expected available in ${seconds} seconds.`;
const rateLimitExceeded = () => 'Rate limit exceeded';
const guruTypeNamed = (slug: string) => `Guru type ${slug} not found`;

const standard: OperationWording = {
  field: 'msg',
  throttled: throttledWithSeconds,
  guruNotFound: guruTypeNamed,
  guruNotFoundStatus: 404,
  invalidRequest: 'Invalid request parameters',
  problemWording: 'prefixed',
  otherGurusKey: 'invalid_key',
};

/** An operation whose spec message for a bad request names one particular problem. */
const namesOneProblem = (invalidRequest: string) => ({ invalidRequest, problemWording: 'own' }) as const;

const WORDING: Record<Operation, OperationWording> = {
  // The spec lets ask answer with any message: it names the problem.
  ask: { ...standard, ...namesOneProblem('Invalid request') },
  follow_up: {
    ...standard,
    field: 'error',
    throttled: rateLimitExceeded,
    guruNotFound: () => 'Guru type does not exist',
    ...namesOneProblem('Question slug or question text is required'),
  },
  text_to_speech: { ...standard, authField: 'error', throttled: rateLimitExceeded, ...namesOneProblem('No text provided') },
  semantic_search: {
    ...standard,
    field: 'error',
    throttled: rateLimitExceeded,
    guruNotFound: () => 'Guru not found',
    ...namesOneProblem('Question is required'),
  },
  create_sources: standard,
  list_sources: standard,
  reindex_sources: standard,
  delete_sources: standard,
  list_sessions: { ...standard, ...namesOneProblem('Page number must be an integer'), otherGurusKey: 'forbidden' },
  get_session: { ...standard, ...namesOneProblem('Binge ID is required') },
  delete_session: {
    ...standard,
    guruNotFound: () => 'Guru type not found',
    ...namesOneProblem('Binge ID is required'),
    otherGurusKey: 'forbidden',
  },
  start_crawl: { ...standard, ...namesOneProblem('Invalid URL format') },
  crawl_status: { ...standard, invalidRequest: 'Invalid request' },
  stop_crawl: { ...standard, invalidRequest: 'Invalid request' },
  import_channel: { ...standard, throttled: () => 'Request was throttled.', ...namesOneProblem('URL is required') },
  import_playlist: { ...standard, throttled: () => 'Request was throttled.', ...namesOneProblem('URL is required') },
  enduser_data: standard,
  erase_enduser_data: standard,
  answer_progress: { ...standard, ...namesOneProblem('external_user_id is required') },
  upsert_profiles: { ...standard, otherGurusKey: 'forbidden' },
  record_vote: { ...standard, invalidRequest: 'Invalid parameters' },
  admin: standard,
};

export interface GuruErrorInit {
  readonly message: string;
  readonly status: number;
  readonly field: BodyField;
  /** Extra body members sent next to the message (e.g. `users_results`). */
  readonly body?: Readonly<Record<string, unknown>>;
  /** Seconds until a throttled caller may retry. */
  readonly retryAfterSeconds?: number;
  /** What the caller can do about it; shown to models and people, never sent in REST bodies. */
  readonly hint?: string;
}

/** The one error type of the service: the spec's message, HTTP status and body field. */
export class GuruError extends Error {
  readonly status: number;
  readonly field: BodyField;
  readonly body: Readonly<Record<string, unknown>> | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly hint: string | undefined;

  constructor(init: GuruErrorInit) {
    super(init.message);
    this.name = 'GuruError';
    this.status = init.status;
    this.field = init.field;
    this.body = init.body;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.hint = init.hint;
  }

  /** The JSON body the REST API answers with. */
  toBody(): Record<string, unknown> {
    return { [this.field]: this.message, ...this.body };
  }
}

/** The body field an operation's errors travel in, unless a specific error says otherwise. */
export const fieldOf = (op: Operation): BodyField => WORDING[op].field;

export const isGuruError = (value: unknown): value is GuruError => value instanceof GuruError;

function make(op: Operation, status: number, message: string, extra: Partial<GuruErrorInit> = {}): GuruError {
  return new GuruError({ message, status, field: extra.field ?? fieldOf(op), ...extra });
}

/** Factories for every error the service answers with, by meaning. */
export const Errors = {
  invalidApiKey: (op: Operation) =>
    make(op, 401, 'Invalid API key', {
      field: WORDING[op].authField ?? WORDING[op].field,
      hint: 'Send a key of this guru in the x-api-key header; `guru-mcp key create <slug>` makes one.',
    }),
  forbidden: (op: Operation, hint?: string) => make(op, 403, 'Forbidden', hint === undefined ? {} : { hint }),
  /** A valid key used on a guru that exists but is not its own. */
  otherGurusKey: (op: Operation) => (WORDING[op].otherGurusKey === 'forbidden' ? Errors.forbidden(op) : Errors.invalidApiKey(op)),
  throttled: (op: Operation, seconds: number) =>
    make(op, 429, WORDING[op].throttled(seconds), {
      field: WORDING[op].authField ?? WORDING[op].field,
      retryAfterSeconds: seconds,
      hint: `Wait ${seconds} second${seconds === 1 ? '' : 's'} before calling again: calls are limited per guru and end user (external_user_id), as the server's GURU_RATE_LIMIT_PER_MINUTE sets.`,
    }),
  guruNotFound: (op: Operation, slug: string) =>
    make(op, WORDING[op].guruNotFoundStatus, WORDING[op].guruNotFound(slug), {
      hint: 'List the gurus with list_gurus (or `guru-mcp guru list`) and use one of their slugs.',
    }),
  /** The default guru the server was configured with (GURU_DEFAULT_GURU) does not exist. */
  defaultGuruMissing: (op: Operation, slug: string, slugs: readonly string[]) =>
    make(op, WORDING[op].guruNotFoundStatus, WORDING[op].guruNotFound(slug), {
      hint: `"${slug}" is this server's default guru (GURU_DEFAULT_GURU or --default-guru), but no guru has that slug. Pass guru_slug${
        slugs.length === 0 ? ' once a guru exists (`guru-mcp guru create <slug>`)' : ` as one of: ${slugs.slice(0, 20).join(', ')}`
      }, or fix the setting.`,
    }),
  /** The guru of a call outside the one guru a connection is limited to: as if it did not exist. */
  guruOutsideScope: (op: Operation, slug: string, scope: string) =>
    make(op, WORDING[op].guruNotFoundStatus, WORDING[op].guruNotFound(slug), {
      hint: `This connection is limited to the guru "${scope}"; omit guru_slug or pass "${scope}".`,
    }),
  /** A call that names no guru where none is implied (MCP and CLI; REST paths always name one). */
  noGuruSelected: (hint: string) => make('admin', 400, 'No guru selected', { hint }),
  bodyTooLarge: (op: Operation, limitMiB: number) =>
    make(op, 413, `Request body too large (limit ${limitMiB >= 1 ? `${limitMiB} MiB` : `${Math.round(limitMiB * 1024)} KiB`})`),
  /** The operation's own wording for a request it cannot take; `detail`, if given, is the hint saying why. */
  invalidRequest: (op: Operation, detail?: string) =>
    make(op, 400, WORDING[op].invalidRequest, detail === undefined ? {} : { hint: detail }),
  /**
   * A request that is not what the operation takes (no JSON, a field of the wrong
   * type, too long, missing): the message says what is wrong, in the words of
   * `problem`, after the spec's message where that one is generic.
   */
  invalidInput: (op: Operation, problem: string) =>
    make(op, 400, WORDING[op].problemWording === 'prefixed' ? `${WORDING[op].invalidRequest}: ${problem}` : problem),
  /** Ask accepts any error message in its 400 body; this one names the problem. */
  badAsk: (message: string) => make('ask', 400, message),

  externalUserMismatch: () => make('ask', 400, 'External user ID mismatch for this session. Code: S-902'),
  sessionNotFoundForAsk: (sessionId: string) =>
    make('ask', 400, `Session ${sessionId} not found`, {
      hint: 'Omit session_id to start a new conversation, or use a session_id from an earlier answer.',
    }),

  /** URLs of an integration's kind, for a guru that has no credentials for it. */
  integrationMissing: (name: string, slug: string) =>
    make('create_sources', 400, `${name} integration is not set up for this guru`, {
      hint: `Set it with \`guru-mcp integration set ${slug} ${name.toLowerCase()} --url <site> [--email <email>]\` (the token is read from GURU_INTEGRATION_TOKEN or stdin).`,
    }),

  bingeDoesNotExist: () => make('follow_up', 400, 'Binge does not exist'),
  questionDoesNotExist: () => make('follow_up', 404, 'Question does not exist'),
  followUpFailed: () => make('follow_up', 500, 'An error occurred while generating follow-up examples'),

  textToSpeechDisabled: () => make('text_to_speech', 403, 'Text-to-speech is not enabled for this guru type'),
  speechFailed: (hint?: string) => make('text_to_speech', 500, 'Error generating speech stream', hint === undefined ? {} : { hint }),
  /** A key with as many texts being read aloud as it may have at once: the spec's throttling answer. */
  speechStreamsOfKey: (seconds: number, cap: number) =>
    make('text_to_speech', 429, WORDING.text_to_speech.throttled(seconds), {
      field: WORDING.text_to_speech.authField,
      retryAfterSeconds: seconds,
      hint: `At most ${cap} texts are read aloud at once per key (GURU_SPEECH_STREAMS_PER_KEY); wait for one to end.`,
    }),
  /** The server reads as many texts aloud as it takes at once, for all callers together. */
  speechBusy: (seconds: number, cap: number) =>
    make('text_to_speech', 503, `Speech is busy: ${cap} texts are being read aloud, the most this server takes at once. Try again in ${seconds} seconds.`, {
      retryAfterSeconds: seconds,
      hint: 'The operator sets how many texts are read aloud at once with GURU_SPEECH_STREAMS.',
    }),

  searchFailed: (details: string) => make('semantic_search', 500, `Error fetching sources: ${details}`),

  noBingeAccess: () => make('get_session', 403, "You don't have access to this binge"),
  bingeNotFound: () => make('get_session', 404, 'Binge not found'),
  sessionAlreadyDeleted: () => make('delete_session', 400, 'Session is already deleted'),
  sessionNotFound: () => make('delete_session', 404, 'Session not found'),
  attachmentNotFound: (hint?: string) => make('get_session', 404, 'Attachment not found', hint === undefined ? {} : { hint }),

  crawlAlreadyRunning: () =>
    make('start_crawl', 400, 'A crawl is already running for this guru. Please wait for it to complete or stop it.'),
  crawlNotFound: (op: 'crawl_status' | 'stop_crawl') => make(op, 404, 'Crawl not found'),

  memoryStoreUnreadable: () => make('enduser_data', 500, 'Memory store could not be read'),

  voteFeedbackTooLong: () => make('record_vote', 400, 'Feedback must be 200 characters or less'),
  voteQuestionNotFound: () =>
    make('record_vote', 404, 'Question not found', {
      hint: 'content_slug is the slug of an answer (from ask, or get_session); binge_id, when given, must be its session.',
    }),
  /** An answer that says it takes no feedback (`can_receive_feedback` false): nothing to vote on. */
  voteNotTaken: () =>
    make('record_vote', 400, 'Invalid parameters: this answer takes no votes (its can_receive_feedback is false)', {
      hint: 'Answers that found no usable context, and clarifications, take no feedback.',
    }),

  profilesFailed: (body: Record<string, unknown>) =>
    make('upsert_profiles', 400, 'Failed to process some users', { field: 'error', body }),
  profilesInternal: () => make('upsert_profiles', 500, 'Internal server error while saving profiles', { field: 'error' }),

  guruExists: (slug: string) =>
    make('admin', 409, `A guru with the slug ${slug} already exists`, { hint: 'Pick another slug, or use the existing guru.' }),

  /** The backend (the local engine's database, or the remote adapter) did not open; `reason` is the system's own words, e.g. EACCES on the data directory. */
  backendUnavailable: (reason: string, hint: string) => make('admin', 503, `The knowledge base could not be opened: ${reason}`, { hint }),

  /** Guru settings asking for more attachments than the operator's ceiling allows; `problem` names the field and the ceiling. */
  overAttachmentCeiling: (problem: string) =>
    make('admin', 400, Errors.invalidInput('admin', problem).message, {
      hint: 'The operator of the server sets the ceiling (GURU_ATTACHMENT_CEILING, e.g. images=10x5000000); ask for less, or ask them to raise it.',
    }),
  /** No room for another large body: the server reads as many at once as its budget (GURU_BODY_BUDGET_MB) holds. */
  bodiesBusy: (op: Operation, seconds: number) =>
    make(op, 503, `The server is busy reading other large requests; try again in ${seconds} seconds`, { retryAfterSeconds: seconds }),

  /** An unexpected failure inside the service; the message never carries internals. */
  internal: (op: Operation) => make(op, 500, 'Internal server error', { hint: 'See the server log (stderr) for details.' }),
} as const;
