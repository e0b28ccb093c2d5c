/** Every command of `guru-mcp`, with its arguments and options. */
import type { CommandSpec, OptionSpecs } from './spec.js';

/** Options every command takes. They map onto the settings of src/config.ts. */
export const COMMON_OPTIONS: OptionSpecs = {
  'data-dir': { type: 'string', value: 'DIR', description: 'where the database lives (env GURU_DATA_DIR; default: per-user data dir)' },
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
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

/** Only without a command: `guru-mcp --version`. */
export const VERSION_OPTION: OptionSpecs = { version: { type: 'boolean', short: 'v', description: 'print the version' } };

const JSON_OUTPUT = { type: 'boolean', description: 'print JSON instead of text' } as const;
const LABEL = { type: 'string', multiple: true, value: 'L' } as const;

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'stdio',
    summary: 'MCP server over stdio (the default when no command is given)',
    details: ['Speaks MCP on stdin/stdout for IDE clients; logs go to stderr.'],
    positionals: [],
    options: {},
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
    name: 'key create',
    summary: "add an API key to a guru and print it (shown once)",
    positionals: [{ name: 'slug', required: true }],
    options: { json: { ...JSON_OUTPUT, description: 'print {"slug","api_key"}' } },
    audience: 'people',
    load: () => import('./commands/key-create.js'),
  },
  {
    name: 'add',
    summary: 'add text sources from files, or from stdin, and wait until they are processed',
    details: [
      'Each FILE becomes one text source named after the file; without FILE the text is read from stdin and --name is required.',
      'Adding a source with an existing name replaces its content. Exits with 1 when a source fails to process.',
    ],
    positionals: [
      { name: 'slug', required: true },
      { name: 'file', required: false, variadic: true },
    ],
    options: {
      name: { type: 'string', value: 'NAME', description: 'source name (stdin, or a single FILE)' },
      label: { ...LABEL, description: 'label for the new sources (repeatable)' },
      'no-wait': { type: 'boolean', description: 'return once the sources are accepted, without waiting' },
      json: JSON_OUTPUT,
    },
    audience: 'people',
    examples: ['guru-mcp add docs README.md guide.md --label manual', 'curl -s https://example.com/faq.txt | guru-mcp add docs --name FAQ'],
    load: () => import('./commands/add.js'),
  },
  {
    name: 'search',
    summary: 'find the sources related to a question',
    positionals: [
      { name: 'slug', required: true },
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
      { name: 'slug', required: true },
      { name: 'question', required: true, variadic: true },
    ],
    options: {
      session: { type: 'string', value: 'ID', description: 'continue the conversation of an earlier answer' },
      json: { ...JSON_OUTPUT, description: 'print the answer object as JSON (no streaming)' },
    },
    audience: 'people',
    examples: ['guru-mcp ask docs "How do I rotate an API key?"', 'guru-mcp ask docs --session SESSION_ID "and for a second guru?"'],
    load: () => import('./commands/ask.js'),
  },
  {
    name: 'sessions',
    summary: "list a guru's conversation sessions, newest first",
    positionals: [{ name: 'slug', required: true }],
    options: {
      page: { type: 'string', value: 'N', description: 'page number (default 1)' },
      search: { type: 'string', value: 'TEXT', description: 'only sessions whose questions match TEXT' },
      json: JSON_OUTPUT,
    },
    audience: 'people',
    load: () => import('./commands/sessions.js'),
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
