/**
 * The MCP server of guru-mcp: tools and resources over a Backend, from one
 * factory for both protocol eras. One instance serves one 2025-era connection
 * (stdio, or one streamable-HTTP session), or one 2026-07-28 stdio connection
 * or HTTP request.
 */
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/server';
import type { Backend } from '../core/assistant.js';
import { offerAnswerView } from './apps/answer-view.js';
import type { Logger } from '../log.js';
import type { RateLimiter } from '../state/rate-limiter.js';
import { registerAttachmentResource } from './attachment-resource.js';
import { GuruSelector } from './gurus.js';
import { listSchemasFrom } from './listed-schemas.js';
import type { Era } from './progress.js';
import { McpRateLimit } from './rate-limit.js';
import { registerResources } from './resources.js';
import { registerLegacySubscriptions } from './subscriptions.js';
import { registerAnswerProgressTool } from './tools/answer-progress.js';
import { registerAskTool } from './tools/ask.js';
import { registerCrawlTools } from './tools/crawls.js';
import { registerFollowUpTool } from './tools/follow-ups.js';
import type { ToolContext } from './tools/context.js';
import { registerEndUserTools } from './tools/end-users.js';
import { registerGuruAdminTools, registerGuruListTool } from './tools/gurus.js';
import { registerSearchTool } from './tools/search.js';
import { registerSessionTools } from './tools/sessions.js';
import { registerSourceTools } from './tools/sources.js';
import { registerSpeechTool } from './tools/speech.js';
import { registerVideoListTools } from './tools/video-lists.js';
import { registerVoteTool } from './tools/votes.js';
import { TOOL_GROUP_NAMES, type ToolGroup } from './tool-groups.js';

export interface GuruMcpServerOptions {
  readonly backend: Backend;
  readonly logger: Logger;
  /** The only guru this connection may reach (the guru of the bearer key); hides guru administration. */
  readonly scope?: string;
  /** How often a subscribed data-sources resource is looked at; DATA_SOURCE_POLL_MS. */
  readonly dataSourcePollMs?: number;
  /** The protocol era the instance serves: 'legacy' is 2025-11-25 and older, 'modern' 2026-07-28. */
  readonly era: Era;
  /** Charges tool calls to this limit (streamable HTTP: the REST API's); without one, calls are not limited (stdio). */
  readonly limiter?: RateLimiter;
  /** The tool groups offered, with their resources (GURU_TOOLS); every group when absent. */
  readonly tools?: readonly ToolGroup[];
}

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The server's icon for hosts that show one: a "G" in a circle, as an SVG data URI (no request leaves the host). */
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#2f5d8a"/><text x="32" y="43" font-family="sans-serif" font-size="32" font-weight="bold" text-anchor="middle" fill="#fff">G</text></svg>';
const ICON = { src: `data:image/svg+xml;base64,${Buffer.from(ICON_SVG).toString('base64')}`, mimeType: 'image/svg+xml', sizes: ['any'] };

/** How gurus are chosen on this connection, which decides how the instructions begin. */
type GuruChoice = 'administered' | 'configured' | 'scoped';

function instructions(choice: GuruChoice, offered: ReadonlySet<ToolGroup>): string {
  const intro =
    'guru-mcp gives you topic experts called gurus. Each guru answers questions from its own knowledge base (documentation, websites, tickets, texts) and cites it: answers come in Markdown with numbered references and a trust score from 0 to 100 saying how well the sources support them.';
  const choosing = {
    administered: `list_gurus shows the gurus; every other tool takes guru_slug, which may be left out when there is a default guru or only one.${offered.has('administration') ? ' create_guru makes a new one.' : ''}`,
    configured: 'Every tool takes guru_slug, which may be left out when the server has a default guru.',
    scoped: 'This connection reaches one guru, so guru_slug can be left out everywhere.',
  }[choice];
  const steps = [choosing];
  if (offered.has('knowledge')) {
    steps.push("add_sources puts texts, web pages, YouTube videos and Jira, Zendesk or Confluence pages into a guru's knowledge base; processing is asynchronous (wait: true waits; list_sources shows each source's status).");
  }
  if (offered.has('crawling')) steps.push("start_crawl discovers a website's pages, import_channel and import_playlist a YouTube channel's or playlist's videos (add: true adds them).");
  if (offered.has('asking')) {
    steps.push(
      "ask answers a question. Prefer it over your own memory for the guru's topic, cite its references, and say so when the trust score is low or 0 instead of guessing. semantic_search only finds related sources.",
      'Follow-ups: pass an answer\'s session_id to ask to continue that conversation. list_sessions and get_session read conversations; the resource guru://{guru_slug}/sessions/{session_id} holds one.',
    );
  }
  return `${intro}\n\nHow to start:\n${steps.map((step, index) => `${index + 1}. ${step}`).join('\n')}`;
}

export function createMcpServer(options: GuruMcpServerOptions): McpServer {
  const { backend, logger, scope, era } = options;
  const offered = new Set<ToolGroup>(options.tools ?? TOOL_GROUP_NAMES);
  const server = new McpServer(
    { name: 'guru-mcp', title: 'Guru knowledge assistants', version, icons: [ICON] },
    {
      instructions: instructions(scope !== undefined ? 'scoped' : backend.admin !== undefined ? 'administered' : 'configured', offered),
      // Updates of guru://{guru_slug}/data-sources: resources/subscribe (2025 era) or subscriptions/listen (2026-07-28).
      capabilities: { resources: { subscribe: true } },
    },
  );
  listSchemasFrom(server);
  const gurus = new GuruSelector(backend, scope);
  const context: ToolContext = {
    assistant: backend.assistant,
    gurus,
    logger,
    era,
    ...(options.limiter === undefined ? {} : { rateLimit: new McpRateLimit(options.limiter, gurus, logger) }),
  };

  const admin = scope === undefined ? backend.admin : undefined;
  if (offered.has('asking')) {
    if (admin !== undefined) registerGuruListTool(server, context, admin);
    // MCP Apps hosts show ask's and semantic_search's results in a view.
    const view = offerAnswerView(server);
    view.show(registerAskTool(server, context));
    view.show(registerSearchTool(server, context));
    registerFollowUpTool(server, context);
    registerSessionTools(server, context);
    registerVoteTool(server, context);
    registerAnswerProgressTool(server, context);
  }
  if (offered.has('knowledge')) registerSourceTools(server, context);
  if (offered.has('crawling')) {
    registerCrawlTools(server, context);
    registerVideoListTools(server, context);
  }
  if (offered.has('end-users')) registerEndUserTools(server, context);
  if (offered.has('speech')) registerSpeechTool(server, context);
  if (offered.has('administration') && admin !== undefined) registerGuruAdminTools(server, context, admin);
  // Conversations go with asking, data sources with knowledge.
  registerResources(server, context, { sessions: offered.has('asking'), dataSources: offered.has('knowledge') });
  if (offered.has('asking')) registerAttachmentResource(server, context);
  if (era === 'legacy') {
    const subscriptions = registerLegacySubscriptions(server, context, options.dataSourcePollMs);
    whenClosed(server, () => subscriptions.close());
  }
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
