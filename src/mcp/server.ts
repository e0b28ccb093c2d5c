/**
 * The MCP server of guru-mcp: tools and resources over a Backend. One instance
 * serves one client connection (stdio, or one streamable-HTTP session).
 */
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Backend } from '../core/assistant.js';
import type { Logger } from '../log.js';
import { sendPlainErrorMessages } from './error-messages.js';
import { GuruSelector } from './gurus.js';
import { registerResources } from './resources.js';
import { registerSubscriptions } from './subscriptions.js';
import { registerAnswerProgressTool } from './tools/answer-progress.js';
import { registerAskTool } from './tools/ask.js';
import { registerCrawlTools } from './tools/crawls.js';
import { registerFollowUpTool } from './tools/follow-ups.js';
import type { ToolContext } from './tools/context.js';
import { registerEndUserTools } from './tools/end-users.js';
import { registerGuruTools } from './tools/gurus.js';
import { registerSearchTool } from './tools/search.js';
import { registerSessionTools } from './tools/sessions.js';
import { registerSourceTools } from './tools/sources.js';
import { registerSpeechTool } from './tools/speech.js';
import { registerVideoListTools } from './tools/video-lists.js';
import { registerVoteTool } from './tools/votes.js';

export interface GuruMcpServerOptions {
  readonly backend: Backend;
  readonly logger: Logger;
  /** The only guru this connection may reach (the guru of the bearer key); hides guru administration. */
  readonly scope?: string;
  /** How often a subscribed data-sources resource is looked at; DATA_SOURCE_POLL_MS. */
  readonly dataSourcePollMs?: number;
}

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** How gurus are chosen on this connection, which decides how the instructions begin. */
type GuruChoice = 'administered' | 'configured' | 'scoped';

function instructions(choice: GuruChoice): string {
  const intro =
    'guru-mcp gives you topic experts called gurus. Each guru answers questions from its own knowledge base (documentation, websites, tickets, texts) and cites it: answers come in Markdown with numbered references and a trust score from 0 to 100 saying how well the sources support them.';
  const choosing = {
    administered:
      'list_gurus shows the gurus (slug and name); every other tool takes guru_slug, which may be left out when there is a default guru or only one. create_guru makes a new one.',
    configured: 'Every tool takes guru_slug, which may be left out when the server has a default guru.',
    scoped: 'This connection reaches one guru, so guru_slug can be left out everywhere.',
  }[choice];
  return `${intro}

How to start:
1. ${choosing}
2. add_sources puts texts, web pages, YouTube videos and Jira, Zendesk or Confluence pages into a guru's knowledge base; processing is asynchronous (wait: true waits for it; list_sources shows each source's status, reindex_sources reads sources again). For a whole website, start_crawl discovers its pages (add: true adds them); import_channel and import_playlist list a YouTube channel's or playlist's videos (add: true adds them).
3. ask answers a question. Prefer it over your own memory for the guru's topic, cite its references, and say so when the trust score is low or 0 instead of guessing. semantic_search only finds related sources.

Follow-ups: every answer carries a session_id; pass it to ask to continue that conversation with its context. list_sessions, get_session and delete_session manage conversations; the resource guru://{guru_slug}/sessions/{session_id} holds one conversation.`;
}

/** The SDK's McpServer, whatever transport it is connected to sending errors without a doubled prefix. */
class GuruMcpServer extends McpServer {
  override connect(transport: Transport): Promise<void> {
    return super.connect(sendPlainErrorMessages(transport));
  }
}

export function createMcpServer(options: GuruMcpServerOptions): McpServer {
  const { backend, logger, scope } = options;
  const server = new GuruMcpServer(
    { name: 'guru-mcp', title: 'Guru knowledge assistants', version },
    { instructions: instructions(scope !== undefined ? 'scoped' : backend.admin !== undefined ? 'administered' : 'configured') },
  );
  const context: ToolContext = { assistant: backend.assistant, gurus: new GuruSelector(backend, scope), logger };

  if (backend.admin !== undefined && scope === undefined) registerGuruTools(server, context, backend.admin);
  registerAskTool(server, context);
  registerSearchTool(server, context);
  registerSourceTools(server, context);
  registerSessionTools(server, context);
  registerCrawlTools(server, context);
  registerVideoListTools(server, context);
  registerVoteTool(server, context);
  registerAnswerProgressTool(server, context);
  registerFollowUpTool(server, context);
  registerEndUserTools(server, context);
  registerSpeechTool(server, context);
  registerResources(server, context);
  const subscriptions = registerSubscriptions(server, context, options.dataSourcePollMs);
  whenClosed(server, () => subscriptions.close());
  return server;
}

/**
 * Runs `listener` when the server's connection ends, after any listener set
 * before. The SDK offers a single `onclose`; this keeps every one of them.
 */
export function whenClosed(server: McpServer, listener: () => void): void {
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    listener();
  };
}
