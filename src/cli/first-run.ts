/**
 * Leading a first user to a working guru: on a data directory without any,
 * `serve` and `stdio` name the one command that makes one, and `guru create`
 * says what to do next (knowledge, a question, an MCP client's entry).
 */
import type { Backend } from '../core/assistant.js';
import type { Config } from '../config.js';
import { commandLine, stdioEntry } from './invocation.js';
import { shellQuote } from './output.js';
import type { OutputStream } from './spec.js';

/** The slug suggested for a first guru: the configured default, else `docs`. */
const firstSlug = (backend: Backend): string => backend.defaultGuru ?? 'docs';

/** Says on `stderr` how to create a guru, when the backend has none (local engine only: a remote one has its gurus). */
export async function sayHowToStart(backend: Backend, config: Config, stderr: OutputStream): Promise<void> {
  if (backend.admin === undefined || (await backend.admin.listGurus()).length > 0) return;
  stderr.write(`No guru yet. Create one, and see what to do next, with: ${commandLine(config, `guru create ${firstSlug(backend)}`)}\n`);
}

/** What to do after `guru create`: add knowledge, ask, connect an MCP client. */
export function nextSteps(config: Config, slug: string): string[] {
  const run = (words: string) => `    ${commandLine(config, words)}`;
  const quoted = shellQuote(slug);
  return [
    'Next steps:',
    '  1. Give it knowledge (files, web pages, videos; or a whole site with crawl --add):',
    run(`add ${quoted} README.md https://example.com/docs/`),
    run(`crawl ${quoted} https://example.com/docs/ --add`),
    '  2. Ask it:',
    run(`ask ${quoted} "How do I get started?"`),
    '  3. Connect an MCP client: in its mcpServers (Claude Desktop, Cursor, .mcp.json):',
    `    "guru": ${JSON.stringify(stdioEntry(config, slug))}`,
    `    or, while ${commandLine(config, 'serve')} runs: "guru-http": {"type": "http", "url": "http://${config.host}:${config.port}/mcp"}`,
  ];
}
