/** Every command of `guru-mcp`, with its arguments and options. */
import { END_USER_COMMANDS } from './end-user-commands.js';
import { TOOL_GROUP_NAMES } from '../mcp/tool-groups.js';
import type { CommandSpec, OptionSpecs } from './spec.js';

/** Options every command takes. They map onto the settings of src/config.ts. */
export const COMMON_OPTIONS: OptionSpecs = {
  'data-dir': { type: 'string', value: 'DIR', description: 'where the database lives (env GURU_DATA_DIR; default: per-user data dir)' },
  // Every command that opens the engine's store needs the same one: the data directory's, or PostgreSQL's.
  'database-url': {
    type: 'string',
    value: 'URL',
    description:
      'postgres:// or postgresql:// URL of PostgreSQL 15+ for the durable store, shared by several processes (env GURU_DATABASE_URL; give a password there, flags show in process lists)',
  },
  config: { type: 'string', value: 'FILE', description: 'JSON settings file (env GURU_CONFIG)' },
  'log-level': { type: 'string', value: 'LEVEL', description: 'error, warn, info or debug (env GURU_LOG_LEVEL)' },
  'default-guru': { type: 'string', value: 'SLUG', description: 'guru used when none is named (env GURU_DEFAULT_GURU)' },
  backend: { type: 'string', value: 'KIND', description: 'local (the embedded engine; default) or remote (env GURU_BACKEND)' },
  // The remote key is read from GURU_API_KEY (or the config file) only: a flag would show in process lists.
  'api-url': {
    type: 'string',
    value: 'URL',
    description: 'REST API of the remote backend (env GURU_API_URL; default https://api.gurubase.io/api/v1); its key: env GURU_API_KEY',
  },
  // Like the remote key, the language model's key is read from GURU_LLM_API_KEY (or the config file) only.
  'llm-url': {
    type: 'string',
    value: 'URL',
    description: 'OpenAI-compatible API root of the language model for answers, e.g. http://localhost:11434/v1 (env GURU_LLM_URL); its key: env GURU_LLM_API_KEY',
  },
  'llm-model': { type: 'string', value: 'NAME', description: 'chat model at --llm-url, e.g. llama3.2 (env GURU_LLM_MODEL)' },
  'llm-images': {
    type: 'boolean',
    description: "the chat model reads images: a question's images go to it (env GURU_LLM_IMAGES=1; off by default, as many models take text only)",
  },
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

/** The common options `command` takes (see CommandSpec.commonOptions); all of them without a command. */
export function commonOptionsOf(command: CommandSpec | undefined): OptionSpecs {
  const taken = command?.commonOptions;
  if (taken === undefined) return COMMON_OPTIONS;
  return Object.fromEntries(Object.entries(COMMON_OPTIONS).filter(([name]) => name === 'help' || taken.includes(name)));
}

/** Only without a command: `guru-mcp --version`. */
export const VERSION_OPTION: OptionSpecs = { version: { type: 'boolean', short: 'v', description: 'print the version' } };

/** `stdio` and `serve`: Redis for the short-lived state that processes on several machines share. */
const REDIS_URL_OPTION = {
  type: 'string',
  value: 'URL',
  description: 'redis:// or rediss:// URL holding rate-limit windows and answer progress instead of the data directory (env GURU_REDIS_URL; give a password there, flags show in process lists)',
} as const;

/** `stdio` and `serve`: which MCP tools (and resources) clients get. */
const TOOLS_OPTION = {
  type: 'string',
  value: 'GROUPS',
  description: `MCP tool groups to offer, comma-separated: ${TOOL_GROUP_NAMES.join(', ')} (env GURU_TOOLS; default: all)`,
} as const;

const JSON_OUTPUT = { type: 'boolean', description: 'print JSON instead of text' } as const;
const LABEL = { type: 'string', multiple: true, value: 'L' } as const;
const VERBOSE = { type: 'boolean', description: 'a row for every source; without it, over 20 sources show as counts by status and the failures' } as const;

const VIDEO_IMPORT_OPTIONS: OptionSpecs = {
  add: { type: 'string', value: 'SLUG', description: 'add the videos to this guru and wait until they are processed' },
  verbose: VERBOSE,
  json: { ...JSON_OUTPUT, description: 'print the import object; with --add {"import","sources","refused"}' },
};

const VIDEO_IMPORT_DETAILS = (url: string): string[] => [
  `${url} Prints the count and the video URLs, read from the YouTube Data API: it needs an API key in GURU_YOUTUBE_API_KEY.`,
  'With --add SLUG the videos are added to that guru in the listed order and followed until processed, one row per video; a guru holds at most 100 videos, and the ones beyond that are named on stderr. Exits with 1 when a video was not added or failed.',
];

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'stdio',
    summary: 'MCP server over stdio (the default when no command is given)',
    details: ['Speaks MCP on stdin/stdout for IDE clients; logs go to stderr.'],
    positionals: [],
    options: {
      tools: TOOLS_OPTION,
      'redis-url': REDIS_URL_OPTION,
    },
    audience: 'machines',
    load: () => import('./commands/stdio.js'),
  },
  {
    name: 'serve',
    summary: 'HTTP server: REST API under /api/v1, MCP at /mcp, GET /healthz',
    details: ['Prints "listening on <url>" to stderr once ready. Stops cleanly on SIGINT or SIGTERM.'],
    positionals: [],
    options: {
      host: { type: 'string', value: 'HOST', description: 'address to listen on (env GURU_HOST; default 127.0.0.1)' },
      port: { type: 'string', value: 'PORT', description: 'port to listen on, 0 for any free port (env GURU_PORT; default 8787)' },
      'public-url': {
        type: 'string',
        value: 'URL',
        description: 'URL clients reach the server at, for absolute links in responses (env GURU_PUBLIC_URL; default: relative links)',
      },
      tools: TOOLS_OPTION,
      'redis-url': REDIS_URL_OPTION,
    },
    audience: 'machines',
    examples: ['guru-mcp serve --port 8787'],
    load: () => import('./commands/serve.js'),
  },
  {
    name: 'guru create',
    summary: 'create a guru and print its API key (shown once)',
    positionals: [{ name: 'slug', required: true }],
    options: {
      name: { type: 'string', value: 'NAME', description: 'display name (default: the slug)' },
      json: { ...JSON_OUTPUT, description: 'print {"slug","name","api_key"}' },
    },
    audience: 'people',
    examples: ['guru-mcp guru create docs --name "Product docs"'],
    load: () => import('./commands/guru-create.js'),
  },
  {
    name: 'guru list',
    summary: 'list the gurus',
    positionals: [],
    options: { json: JSON_OUTPUT },
    audience: 'people',
    load: () => import('./commands/guru-list.js'),
  },
  {
    name: 'migrate',
    summary: 'copy the data directory into PostgreSQL, to run several processes on one store',
    details: [
      'Copies everything the embedded store holds (gurus and their keys, sources and their text, sessions, answers, votes, crawls, settings) into the empty PostgreSQL database named by GURU_DATABASE_URL (or --database-url), in one transaction: a copy that fails keeps nothing. The data directory is only read and stays as it was.',
      'API keys keep working. Keep the data directory\'s secret.key beside every process that uses the database: stored integration credentials are encrypted with it.',
    ],
    positionals: [],
    options: { json: { ...JSON_OUTPUT, description: 'print {"tables":[{"table","rows"}]}' } },
    // It reads the data directory and writes the database: no backend, guru or language model.
    commonOptions: ['data-dir', 'database-url', 'config', 'log-level'],
    audience: 'people',
    examples: ['GURU_DATABASE_URL=postgresql://guru:secret@db.internal/guru guru-mcp migrate --data-dir ~/.local/share/guru-mcp'],
    load: () => import('./commands/migrate.js'),
  },
  {
    name: 'guru delete',
    summary: 'delete a guru with everything it holds, for good (local engine only)',
    details: [
      'Its sources, sessions and answers, votes, crawls, end-user data and profiles go, and its API keys stop working; the text leaves the database file. Prints how many of each were deleted.',
      'Asks for confirmation on a terminal; elsewhere (scripts, pipes) --yes is required.',
    ],
    positionals: [{ name: 'slug', required: true }],
    options: {
      yes: { type: 'boolean', short: 'y', description: 'delete without asking' },
      json: { ...JSON_OUTPUT, description: 'print {"slug","deleted"}' },
    },
    audience: 'people',
    examples: ['guru-mcp guru delete old-docs --yes'],
    load: () => import('./commands/guru-delete.js'),
  },
  {
    name: 'key create',
    summary: "add an API key to a guru and print it (shown once)",
    positionals: [{ name: 'slug', required: true, guru: true }],
    options: { json: { ...JSON_OUTPUT, description: 'print {"slug","api_key"}' } },
    audience: 'people',
    load: () => import('./commands/key-create.js'),
  },
  {
    name: 'add',
    summary: 'add files, folders, URLs (web pages, videos, Jira, Zendesk, Confluence) or stdin, and wait until they are processed',
    details: [
      'Each FILE becomes one source named after the file, read by what it is: HTML as a web page is (its text, under its title), Markdown and text as they are, PDF, Word and Excel as documents; an image or other binary file is refused with the reason. Without any argument the text is read from stdin and --name is required.',
      'A FOLDER adds every file below it, named by its path from the folder. Hidden files and folders, node_modules, empty files, files over 50 MB, images and other unsupported files, and links leading outside the folder or back into it are skipped and counted on stderr; a folder over 1000 files, 200 MB or 16 levels deep is refused whole. Adding it again answers "already added" for unchanged files and reads the changed ones again.',
      'Arguments starting with http:// or https:// are URL sources: YouTube URLs become videos (title and transcript), any other URL a web page. With --kind every URL is of that kind; jira, zendesk and confluence need the guru\'s integration (guru-mcp integration set).',
      'Everything goes in one request. A URL already added is shown as "already added" (in --json, "added": "exists"; with --no-wait its status is EXISTS), and a URL given twice, also as URL#fragment, is one source; adding a text with an existing name replaces its content. Over 20 sources show as counts by status and the failures (every one with --verbose or --json). Exits with 1 when a source fails to process.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'file|url', required: false, variadic: true },
    ],
    options: {
      kind: { type: 'string', value: 'KIND', description: 'what every URL is: website, youtube, jira, zendesk or confluence (default: by host)' },
      name: { type: 'string', value: 'NAME', description: 'source name (stdin, or a single FILE)' },
      label: { ...LABEL, description: 'label for the new sources (repeatable)' },
      'no-wait': { type: 'boolean', description: 'return once the sources are accepted, without waiting' },
      verbose: VERBOSE,
      json: JSON_OUTPUT,
    },
    audience: 'people',
    examples: [
      'guru-mcp add docs README.md guide.md --label manual',
      'guru-mcp add docs ./manual',
      'guru-mcp add docs https://example.com/docs/install https://youtu.be/dQw4w9WgXcQ',
      'guru-mcp add docs --kind jira https://example.atlassian.net/browse/OPS-12',
      'curl -s https://example.com/faq.txt | guru-mcp add docs --name FAQ',
    ],
    load: () => import('./commands/add.js'),
  },
  {
    name: 'upload',
    summary: 'upload files (PDF, Word .docx, Excel .xlsx, HTML, Markdown, text) as sources and wait until they are processed',
    details: [
      'The kind of each file is read from its content, then its name, as add does. A file of another kind is refused with the reason, the others are still added; a file of the same name whose text is unchanged is not read again.',
      'Every file is read before anything is sent: a directory or an unreadable path uploads nothing. Private documents are answered from but never linked or named to end users.',
      'Prints one row per file; exits with 1 when a file is refused or fails to process. Local engine only.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'file', required: true, variadic: true },
    ],
    options: {
      private: { type: 'boolean', description: 'keep the documents private: used in answers, never linked or named' },
      label: { ...LABEL, description: 'label for the new sources (repeatable)' },
      'no-wait': { type: 'boolean', description: 'return once the files are accepted, without waiting' },
      json: JSON_OUTPUT,
    },
    audience: 'people',
    examples: ['guru-mcp upload docs handbook.pdf prices.xlsx --label internal --private'],
    load: () => import('./commands/upload.js'),
  },
  {
    name: 'sources',
    summary: "list a guru's data sources, newest first, with their status and errors",
    positionals: [{ name: 'slug', required: true, guru: true }],
    options: {
      page: { type: 'string', value: 'N', description: 'page number (default 1)' },
      'page-size': { type: 'string', value: 'N', description: 'sources per page (default 50, at most 1000)' },
      json: { ...JSON_OUTPUT, description: 'print {"count","page","page_size","results"}' },
    },
    audience: 'people',
    load: () => import('./commands/sources.js'),
  },
  {
    name: 'reindex',
    summary: 'process sources again by id and wait until they are done',
    details: [
      'Web pages, videos, Jira, Zendesk and Confluence items are fetched again; texts and documents are indexed again from their stored text.',
      'Ids are those of guru-mcp sources. An id that is not a source of the guru refuses the whole request. Exits with 1 when a source fails.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'id', required: true, variadic: true },
    ],
    options: {
      'no-wait': { type: 'boolean', description: 'return once the request is accepted, without waiting' },
      verbose: VERBOSE,
      json: JSON_OUTPUT,
    },
    audience: 'people',
    examples: ['guru-mcp reindex docs 12 14'],
    load: () => import('./commands/reindex.js'),
  },
  {
    name: 'sources-delete',
    summary: 'delete sources by id, for good, and print what was deleted',
    details: [
      'Their text leaves the index and the database file; answers stop citing them. Ids are those of guru-mcp sources; ids that are not sources of the guru are passed over, and named.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'id', required: true, variadic: true },
    ],
    options: { json: { ...JSON_OUTPUT, description: 'print {"msg","deleted","passed_over"}' } },
    audience: 'people',
    examples: ['guru-mcp sources-delete docs 12 14'],
    load: () => import('./commands/sources-delete.js'),
  },
  {
    name: 'crawl',
    summary: "discover a website's pages, showing the count found until the crawl ends; --add adds them as sources",
    details: [
      'Follows only links that begin with <url> (a site root crawls the whole site, a sub-path only that part), breadth-first, honouring robots.txt and the sitemap, skipping assets and files; at most 1500 pages. Query strings are stripped from the URLs found unless --keep-query (for paginated listings).',
      'Prints the crawl\'s status and every URL found; nothing is indexed. With --add the pages are then added as web page sources and followed until processed, one row per source; a guru holds at most 1500 web pages, and the pages beyond that are named on stderr. Exits with 1 when the crawl did not complete, a page was not added, or a source failed.',
      'Ctrl-C stops the crawl (the URLs found so far are kept) and exits with 130. --no-wait returns the running crawl at once; it needs the remote backend, since the embedded engine crawls inside the command.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'url', required: true },
    ],
    options: {
      'keep-query': { type: 'boolean', description: 'keep query strings in the URLs found (default: stripped)' },
      add: { type: 'boolean', description: 'add the pages found as web page sources and wait until they are processed' },
      'no-wait': { type: 'boolean', description: 'print the running crawl and return (remote backend only)' },
      verbose: { ...VERBOSE, description: 'with --add, a row for every source; without it, over 20 show as counts by status and the failures' },
      json: { ...JSON_OUTPUT, description: 'print the crawl object; with --add {"crawl","sources","refused"}' },
    },
    audience: 'people',
    examples: ['guru-mcp crawl docs https://example.com/docs/', 'guru-mcp crawl docs https://example.com/blog/ --keep-query --add'],
    load: () => import('./commands/crawl.js'),
  },
  {
    name: 'crawl-status',
    summary: 'show a crawl: its status and the URLs found so far',
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'id', required: true },
    ],
    options: { json: { ...JSON_OUTPUT, description: 'print the crawl object' } },
    audience: 'people',
    load: () => import('./commands/crawl-status.js'),
  },
  {
    name: 'crawl-stop',
    summary: 'stop a running crawl, keeping the URLs found so far',
    details: ['A crawl that has already ended is shown as it is.'],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'id', required: true },
    ],
    options: { json: { ...JSON_OUTPUT, description: 'print the crawl object' } },
    audience: 'people',
    load: () => import('./commands/crawl-stop.js'),
  },
  {
    name: 'import channel',
    summary: "list a YouTube channel's videos; --add adds them to a guru",
    details: VIDEO_IMPORT_DETAILS('<url> is https://www.youtube.com/channel/UC… or https://www.youtube.com/@handle; every uploaded video is listed.'),
    positionals: [{ name: 'url', required: true }],
    options: VIDEO_IMPORT_OPTIONS,
    audience: 'people',
    examples: ['guru-mcp import channel https://www.youtube.com/@example', 'guru-mcp import channel https://www.youtube.com/@example --add docs'],
    load: () => import('./commands/import-channel.js'),
  },
  {
    name: 'import playlist',
    summary: "list a YouTube playlist's videos; --add adds them to a guru",
    details: VIDEO_IMPORT_DETAILS('<url> names the playlist in its list= parameter: https://www.youtube.com/playlist?list=PL… or a watch URL with &list=.'),
    positionals: [{ name: 'url', required: true }],
    options: VIDEO_IMPORT_OPTIONS,
    audience: 'people',
    examples: ["guru-mcp import playlist 'https://www.youtube.com/playlist?list=PL0123456789' --add docs"],
    load: () => import('./commands/import-playlist.js'),
  },
  {
    name: 'integration set',
    summary: "set a guru's credentials for Jira, Zendesk or Confluence",
    details: [
      'KIND is jira, zendesk or confluence. The API token is read from the environment variable GURU_INTEGRATION_TOKEN, else from stdin (on a terminal: asked for, not echoed); never from a flag, which would show in process lists.',
      'Jira and Confluence Cloud: --email of the account and its API token. Server and Data Center: a personal access token, without --email. Zendesk: the agent\'s --email and an API token.',
      'Tokens are stored encrypted beside the database and never printed. Setting a kind again replaces it. Local engine only.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'kind', required: true },
    ],
    options: {
      url: { type: 'string', value: 'URL', description: 'the site, e.g. https://example.atlassian.net or https://example.zendesk.com' },
      email: { type: 'string', value: 'EMAIL', description: 'account email (Cloud sites; required for Zendesk)' },
      json: { ...JSON_OUTPUT, description: 'print {"kind","base_url","email","date_created"}' },
    },
    audience: 'people',
    examples: [
      'GURU_INTEGRATION_TOKEN=... guru-mcp integration set docs jira --url https://example.atlassian.net --email bot@example.com',
      'guru-mcp integration set docs confluence --url https://wiki.example.com < token.txt',
    ],
    load: () => import('./commands/integration-set.js'),
  },
  {
    name: 'integration list',
    summary: "list a guru's integrations (never their tokens)",
    positionals: [{ name: 'slug', required: true, guru: true }],
    options: { json: JSON_OUTPUT },
    audience: 'people',
    load: () => import('./commands/integration-list.js'),
  },
  {
    name: 'integration remove',
    summary: "remove a guru's Jira, Zendesk or Confluence credentials",
    details: ['Sources already added stay; reading them again (reindex) needs the integration.'],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'kind', required: true },
    ],
    options: {},
    audience: 'people',
    load: () => import('./commands/integration-remove.js'),
  },
  {
    name: 'search',
    summary: 'find the sources related to a question',
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'question', required: true, variadic: true },
    ],
    options: { label: { ...LABEL, description: 'only sources with this label (repeatable; any matches)' }, json: JSON_OUTPUT },
    audience: 'people',
    examples: ['guru-mcp search docs how do I rotate keys --label manual'],
    load: () => import('./commands/search.js'),
  },
  {
    name: 'ask',
    summary: 'ask a guru; the answer streams to stdout, then its trust score, references and session id',
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'question', required: true, variadic: true },
    ],
    options: {
      session: { type: 'string', value: 'ID', description: 'continue the conversation of an earlier answer' },
      attach: {
        type: 'string',
        multiple: true,
        value: 'FILE',
        description: 'attach a file (repeatable), placed by its content: a PDF or a log (UTF-8 text) is searched with the knowledge base; an image is read only by a model that reads images',
      },
      'follow-ups': { type: 'boolean', description: 'then show up to 3 questions to ask next (as guru-mcp follow-ups does)' },
      json: { ...JSON_OUTPUT, description: 'print the answer object as JSON (no streaming); with --follow-ups it has follow_up_examples' },
    },
    audience: 'people',
    examples: [
      'guru-mcp ask docs "How do I rotate an API key?"',
      'guru-mcp ask docs --session SESSION_ID "and for a second guru?"',
      'guru-mcp ask docs --attach server.log --attach report.pdf "Why does the server fail to start?"',
    ],
    load: () => import('./commands/ask.js'),
  },
  {
    name: 'sessions',
    summary: "list a guru's conversation sessions, newest first",
    positionals: [{ name: 'slug', required: true, guru: true }],
    options: {
      page: { type: 'string', value: 'N', description: 'page number (default 1)' },
      search: { type: 'string', value: 'TEXT', description: 'only sessions whose questions match TEXT' },
      json: JSON_OUTPUT,
    },
    audience: 'people',
    examples: ['guru-mcp sessions docs --search refund'],
    load: () => import('./commands/sessions.js'),
  },
  {
    name: 'session',
    summary: 'show a conversation session: every question and answer, with trust scores and references',
    details: ['Session ids are those of guru-mcp sessions, and the "Session:" line after an answer. On a terminal the answers are rendered; elsewhere they stay Markdown.'],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'id', required: true },
    ],
    options: { json: { ...JSON_OUTPUT, description: 'print the session object {"binge_id","root_question_slug","date_created","last_used","conversation"}' } },
    audience: 'people',
    examples: ['guru-mcp session docs 0e5881a0-543c-471b-be2a-59fe89d3746e'],
    load: () => import('./commands/session.js'),
  },
  {
    name: 'session-delete',
    summary: 'delete a conversation session',
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'id', required: true },
    ],
    options: { json: { ...JSON_OUTPUT, description: 'print {"msg","session_id"}' } },
    audience: 'people',
    load: () => import('./commands/session-delete.js'),
  },
  {
    name: 'vote',
    summary: 'vote up or down on an answer, with optional feedback',
    details: [
      '<answer> is the slug of an answer: guru-mcp ask prints the vote command with it after each answer that takes votes. The vote shows as user_vote of its turn in the session.',
      'The first vote stands: voting again prints "Already voted" with the vote recorded. Answers that found nothing in the knowledge base take no votes.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'answer', required: true },
      { name: 'up|down', required: true },
    ],
    options: {
      feedback: { type: 'string', value: 'TEXT', description: 'what was good or wrong, at most 200 characters' },
      session: { type: 'string', value: 'ID', description: 'the session of the answer; refused when the answer is not in it' },
      json: { ...JSON_OUTPUT, description: 'print {"vote","feedback"} or {"msg","vote"}' },
    },
    audience: 'people',
    examples: ['guru-mcp vote docs how-do-i-rotate-keys-3f9a1c07d2e4 down --feedback "Misses the second guru"'],
    load: () => import('./commands/vote.js'),
  },
  {
    name: 'follow-ups',
    summary: 'suggest up to 3 questions to ask after an answer, each one the guru can answer',
    details: [
      '<answer> is the slug of an answer, as printed by guru-mcp ask. The questions are about the sections of the knowledge base next to the ones the answer cited that the session has not covered yet. They are made once and stored: asking again shows the same ones.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'answer', required: true },
    ],
    options: {
      session: { type: 'string', value: 'ID', description: 'the session of the answer; refused when the answer is not in it' },
      json: { ...JSON_OUTPUT, description: 'print {"follow_up_examples","question_slug","cached"}' },
    },
    audience: 'people',
    examples: ['guru-mcp follow-ups docs how-do-i-rotate-keys-3f9a1c07d2e4', 'guru-mcp ask docs --follow-ups "How do I rotate an API key?"'],
    load: () => import('./commands/follow-ups.js'),
  },
  {
    name: 'answer-progress',
    summary: "show the progress line of an end user's answer: its current stage and when it was set",
    details: [
      '<user> is the external_user_id the answer was asked with (over REST or MCP). The last line stays for about 2 minutes after its update; after that, or before any answer, nothing is in progress.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'user', required: true },
    ],
    options: { json: { ...JSON_OUTPUT, description: 'print {"status_text","updated_at"} (Unix seconds, or null)' } },
    audience: 'people',
    examples: ['guru-mcp answer-progress docs 6f1c2a9e-user'],
    load: () => import('./commands/answer-progress.js'),
  },
  ...END_USER_COMMANDS,
  {
    name: 'speak',
    summary: 'read a text aloud with the offline voice: MP3 to a file or to stdout',
    details: [
      'The text comes from the arguments, or from stdin when there are none (or "-"). Markdown is read as words; code in backticks is said as "Code block" or "Inline code".',
      'The MP3 streams as it is synthesized, to --out FILE or to stdout when stdout is not a terminal (a pipe to a player, a redirect). The local engine needs the espeak-ng program (apt-get install espeak-ng, brew install espeak-ng).',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'text', required: false, variadic: true },
    ],
    options: {
      out: { type: 'string', short: 'o', value: 'FILE', description: 'write the MP3 to FILE instead of stdout' },
      v2: { type: 'boolean', description: 'use the speech provider (GURU_TTS_URL), where guru-mcp speech <slug> on enabled it' },
    },
    audience: 'people',
    examples: ['guru-mcp speak docs "Keys rotate every 90 days." -o keys.mp3', 'guru-mcp ask docs --json "How do I rotate keys?" | jq -r .content | guru-mcp speak docs - | mpv -'],
    load: () => import('./commands/speak.js'),
  },
  {
    name: 'settings',
    summary: "show or change a guru's settings: model instructions, use of the model, speech provider, attachment limits",
    details: [
      'Without options the settings are printed; each option given changes that setting only. --model-instructions "" removes the instructions.',
      'Model instructions (at most 4,000 characters) are added to the language model\'s own (tone, product name); --use-model off answers without the model even where GURU_LLM_URL is set. --speech-provider is what `guru-mcp speech <slug> on|off` sets.',
      'Attachment limits per kind (images, log_files, pdf_files): how many a question may carry and how large each may be, in bytes. Defaults: images=5x5000000, log_files=5x1000000, pdf_files=3x10000000, which are also the most a guru may be given unless GURU_ATTACHMENT_CEILING on the server allows more. Local engine only.',
    ],
    positionals: [{ name: 'slug', required: true, guru: true }],
    options: {
      'model-instructions': { type: 'string', value: 'TEXT', description: 'added to the model\'s instructions ("" for none)' },
      'use-model': { type: 'string', value: 'on|off', description: 'answer with the language model where one is configured' },
      'speech-provider': { type: 'string', value: 'on|off', description: 'speak through the speech provider (text-to-speech v2)' },
      'attachment-limit': { type: 'string', multiple: true, value: 'KIND=COUNTxBYTES', description: 'e.g. pdf_files=3x10000000 (repeatable)' },
      json: { ...JSON_OUTPUT, description: 'print the settings as JSON' },
    },
    audience: 'people',
    examples: ['guru-mcp settings docs', 'guru-mcp settings docs --model-instructions "Answer as the Acme support team." --attachment-limit log_files=3x500000'],
    load: () => import('./commands/settings.js'),
  },
  {
    name: 'speech',
    summary: 'let a guru speak through the speech provider (text-to-speech v2), or stop it',
    details: [
      'The provider is an OpenAI-compatible /audio/speech endpoint: GURU_TTS_URL, GURU_TTS_MODEL, GURU_TTS_VOICE (default alloy) and GURU_TTS_API_KEY (environment or config file only). Without "on", text-to-speech v2 answers "Text-to-speech is not enabled for this guru type". Local engine only.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'on|off', required: true },
    ],
    options: {},
    audience: 'people',
    examples: ['guru-mcp speech docs on'],
    load: () => import('./commands/speech.js'),
  },
];

export const DEFAULT_COMMAND = 'stdio';

/** Words that only group subcommands (`guru` of `guru create`). */
export function groupOf(name: string): string | undefined {
  const space = name.indexOf(' ');
  return space === -1 ? undefined : name.slice(0, space);
}

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((command) => command.name === name);
}

export function commandsOfGroup(group: string): CommandSpec[] {
  return COMMANDS.filter((command) => groupOf(command.name) === group);
}

export function isGroup(word: string): boolean {
  return commandsOfGroup(word).length > 0;
}
