/** `add_sources`, `reindex_sources`, `delete_sources` and `list_sources`: the guru's knowledge base. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { Errors } from '../../core/errors.js';
import {
  DeleteDataSourcesRequest,
  Labels,
  MAX_SOURCE_PAGE_SIZE,
  MAX_TEXT_SOURCES,
  ReindexRequest,
  TextSourceInput,
  UrlList as UrlListOfRequest,
} from '../../core/schemas.js';
import type { CreateDataSourcesRequest } from '../../core/schemas.js';
import { isSettled, waitForSources } from '../../core/wait-for-sources.js';
import { ProgressReporter, type ToolExtra } from '../progress.js';
import { renderSourcePage } from '../render.js';
import { toolResult } from '../results.js';
import { MAX_LISTED_SOURCES, Processing, renderProcessing, renderSubmitted, SubmittedSources, summarizeProcessing, summarizeSubmitted } from '../source-lists.js';
import { SourcePage, toSourcePage } from '../source-page.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

export const DEFAULT_SOURCE_PAGE_SIZE = 50;
/** How long add_sources with wait: true waits before answering with what is still pending. */
const WAIT_LIMIT_MS = 5 * 60_000;

const UrlList = (description: string) => UrlListOfRequest.min(1).optional().describe(description);

const needsIntegration = (kind: string) =>
  `Needs the guru's ${kind} integration (set by its administrator with \`guru-mcp integration set <guru> ${kind.toLowerCase()} --url <site>\`); without it the call is refused, naming it.`;

/** The lists of URL sources, by request field: what each takes. */
const URL_SOURCES = {
  website_urls: UrlList(
    'Web pages to add, one source per URL (http:// or https://). The main content is read (menus and footers left out) and kept as Markdown with its title and headings.',
  ),
  youtube_urls: UrlList(
    'YouTube videos to add by their title and transcript: watch, youtu.be, shorts, embed or live URLs. A video without a transcript fails with the reason.',
  ),
  jira_urls: UrlList(`Jira issues with their comments, e.g. https://example.atlassian.net/browse/KEY-123. ${needsIntegration('Jira')}`),
  zendesk_urls: UrlList(
    `Zendesk tickets with their comments (https://example.zendesk.com/agent/tickets/123) and Help Center articles (https://example.zendesk.com/hc/en-us/articles/456-title). ${needsIntegration('Zendesk')}`,
  ),
  confluence_urls: UrlList(
    `Confluence pages, e.g. https://example.atlassian.net/wiki/spaces/KEY/pages/123456/Title, …/pages/viewpage.action?pageId=123456 or …/display/KEY/Title. ${needsIntegration('Confluence')}`,
  ),
};
const URL_FIELDS = Object.keys(URL_SOURCES) as (keyof typeof URL_SOURCES)[];

const AddSourcesParameters = lazySchema(() => z.object({
  text_sources: z
    .array(TextSourceInput)
    .min(1)
    .max(MAX_TEXT_SOURCES)
    .optional()
    .describe(
      'Texts to add: [{name, content}]. name is the title the answers cite; content is plain text or Markdown (headings help the guru cite sections), or an HTML page (a name ending in .html or content starting as an HTML document), which is read as a web page is: its text, not its tags. A name that already exists replaces that source\'s content; the same content again answers exists.',
    ),
  ...URL_SOURCES,
  labels: Labels.optional().describe('Labels attached to every source of this call, e.g. ["release-notes"]; semantic_search can filter on them.'),
  wait: z
    .boolean()
    .default(false)
    .describe(
      'Wait until the sources are processed (SUCCESS or FAIL) before returning, sending progress notifications meanwhile. At most 5 minutes; web pages and videos take longer than texts.',
    ),
  guru_slug: guruSlugParameter,
}));
type AddSourcesParameters = z.infer<typeof AddSourcesParameters>;

/** Made inside the result schemas that hold it: zod finds its description by the object (src/core/lazy-schema.ts). */
const processingResult = () => Processing.optional().describe('Only with wait: true');

const AddSourcesResult = lazySchema(() => SubmittedSources.extend({ processing: processingResult() }));

const ReindexParameters = lazySchema(() => z.object({
  ids: ReindexRequest.shape.ids.describe('Ids of the sources to read again (see list_sources).'),
  wait: z
    .boolean()
    .default(false)
    .describe('Wait until the sources are processed again (SUCCESS or FAIL), sending progress notifications meanwhile. At most 5 minutes.'),
  guru_slug: guruSlugParameter,
}));
type ReindexParameters = z.infer<typeof ReindexParameters>;

const MessageResult = lazySchema(() => z.object({ msg: z.string().describe('What the service did, e.g. "Data sources deleted successfully"') }));

const ReindexResult = lazySchema(() => z.object({
  msg: z.string().describe('What the service accepted, e.g. "Reindexing 2 data sources"'),
  processing: processingResult(),
}));

const DeleteSourcesParameters = lazySchema(() => z.object({
  ids: DeleteDataSourcesRequest.shape.ids.describe('Ids of the sources to delete (see list_sources).'),
  guru_slug: guruSlugParameter,
}));
type DeleteSourcesParameters = z.infer<typeof DeleteSourcesParameters>;

const ListSourcesParameters = lazySchema(() => z.object({
  page: z.number().int().min(1).default(1).describe('Page number, from 1'),
  page_size: z
    .number()
    .int()
    .min(1)
    .max(MAX_SOURCE_PAGE_SIZE)
    .default(DEFAULT_SOURCE_PAGE_SIZE)
    .describe(`Sources per page, at most ${MAX_SOURCE_PAGE_SIZE}`),
  guru_slug: guruSlugParameter,
}));
type ListSourcesParameters = z.infer<typeof ListSourcesParameters>;

export function registerSourceTools(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'add_sources',
    {
      title: 'Add sources to the knowledge base',
      description: [
        "Add texts, web pages, YouTube videos, Jira issues, Zendesk tickets and articles, and Confluence pages to the guru's knowledge base so that ask and semantic_search can use them.",
        'Give any of text_sources, website_urls, youtube_urls, jira_urls, zendesk_urls, confluence_urls in one call.',
        'Each item returns at once with its id and status: success (accepted) or exists (that URL is already in the knowledge base).',
        'Processing is asynchronous: a source is usable once list_sources shows it as SUCCESS (FAIL carries the error).',
        'Pass wait: true to return only when processing has ended.',
        `More than ${MAX_LISTED_SOURCES} items are summarised: counts by status and the failures with their errors; list_sources pages through all sources.`,
        "Sending an existing text name replaces that source's content (the same content answers exists).",
        'URL sources are fetched from the web or from Jira, Zendesk and Confluence; Jira, Zendesk and Confluence need the guru\'s integration for that service (`guru-mcp integration set`).',
      ].join(' '),
      inputSchema: AddSourcesParameters,
      outputSchema: AddSourcesResult,
      // Annotations cannot depend on the arguments: URL sources reach outside, so the tool says it may.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    guarded(context, 'add_sources', 'create_sources', async (args: AddSourcesParameters, extra) => {
      const request = createRequestOf(args);
      const guru = await context.gurus.select('create_sources', args.guru_slug);
      const submitted = await context.assistant.createDataSources(guru, request);
      // The spec echoes each text's content back; the model has just sent it, so it is left out here.
      const created = submitted.map(({ content: _content, ...item }) => item);
      const summary = summarizeSubmitted(created);
      const text = renderSubmitted(guru, summary);
      if (!args.wait) {
        return toolResult(summary, `${text}\nProcessing runs in the background: call list_sources to see when they reach SUCCESS or FAIL.`);
      }
      const processing = await waitWithProgress(context, guru, created.map((item) => item.id), extra);
      return toolResult({ ...summary, processing }, `${text}\n${renderProcessing(processing)}`);
    }),
  );

  server.registerTool(
    'reindex_sources',
    {
      title: 'Read data sources again',
      description: [
        'Process data sources again by id (see list_sources): web pages, videos, Jira, Zendesk and Confluence items are fetched anew; texts and documents are indexed again from their stored text.',
        'Each source goes back to NOT_PROCESSED, then SUCCESS or FAIL; its reindex_count grows and last_reindex_date is set.',
        'Pass wait: true to return only when processing has ended, with progress notifications meanwhile.',
        `More than ${MAX_LISTED_SOURCES} sources are summarised: counts by status and the failures with their errors.`,
        'An id that is not a source of this guru refuses the whole call.',
      ].join(' '),
      inputSchema: ReindexParameters,
      outputSchema: ReindexResult,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    guarded(context, 'reindex_sources', 'reindex_sources', async (args: ReindexParameters, extra) => {
      const guru = await context.gurus.select('reindex_sources', args.guru_slug);
      const { msg } = await context.assistant.reindexDataSources(guru, { ids: args.ids });
      if (!args.wait) {
        return toolResult({ msg }, `${msg}.\nProcessing runs in the background: call list_sources to see when they reach SUCCESS or FAIL.`);
      }
      const processing = await waitWithProgress(context, guru, args.ids, extra);
      return toolResult({ msg, processing }, `${msg}.\n${renderProcessing(processing)}`);
    }),
  );

  server.registerTool(
    'delete_sources',
    {
      title: 'Delete data sources',
      description: [
        "Delete data sources by id (see list_sources), for good: their text leaves the guru's index and store, and answers stop citing them.",
        'Ids that are not sources of this guru are passed over. Use reindex_sources instead to read a source again.',
      ].join(' '),
      inputSchema: DeleteSourcesParameters,
      outputSchema: MessageResult,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'delete_sources', 'delete_sources', async (args: DeleteSourcesParameters) => {
      const guru = await context.gurus.select('delete_sources', args.guru_slug);
      const ids = [...new Set(args.ids)];
      const { msg } = await context.assistant.deleteDataSources(guru, { ids });
      return toolResult({ msg }, `${msg} (guru "${guru}", ids ${ids.join(', ')}; ids that were not its sources were passed over).`);
    }),
  );

  server.registerTool(
    'list_sources',
    {
      title: 'List data sources',
      description: [
        "List the guru's data sources, newest first: id, type, title, url, processing status (NOT_PROCESSED, SUCCESS or FAIL) and the error of failed ones.",
        `Paged: page (from 1) and page_size (default ${DEFAULT_SOURCE_PAGE_SIZE}, at most ${MAX_SOURCE_PAGE_SIZE}); next_page says which page to ask for next, null on the last page.`,
      ].join(' '),
      inputSchema: ListSourcesParameters,
      outputSchema: SourcePage,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'list_sources', 'list_sources', async (args: ListSourcesParameters) => {
      const guru = await context.gurus.select('list_sources', args.guru_slug);
      const page = toSourcePage(await context.assistant.listDataSources(guru, { page: args.page, page_size: args.page_size }));
      return toolResult(page, renderSourcePage(page));
    }),
  );
}

/** The create request of a call; a call without any source is refused here, naming what it takes. */
function createRequestOf(args: AddSourcesParameters): CreateDataSourcesRequest {
  const lists = Object.fromEntries(URL_FIELDS.flatMap((field) => (args[field] === undefined ? [] : [[field, args[field]]])));
  if (args.text_sources === undefined && Object.keys(lists).length === 0) {
    throw Errors.invalidRequest('create_sources', `give at least one of text_sources, ${URL_FIELDS.join(', ')}`);
  }
  return {
    ...lists,
    ...(args.text_sources === undefined ? {} : { text_sources: args.text_sources }),
    ...(args.labels === undefined ? {} : { labels: args.labels }),
  };
}

/** Waits for the sources to settle, or WAIT_LIMIT_MS, reporting progress to a caller that asked for it. */
async function waitWithProgress(context: ToolContext, guru: string, ids: readonly number[], extra: ToolExtra): Promise<Processing> {
  const progress = new ProgressReporter(extra, context);
  const outcomes = await waitForSources(context.assistant, guru, ids, {
    signal: extra.mcpReq.signal,
    onProgress: heartbeat(progress),
    timeLimitMs: WAIT_LIMIT_MS,
  });
  await progress.flush();
  const finished = outcomes.flatMap(({ source }) => (source !== undefined && source.status !== 'NOT_PROCESSED' ? [source] : []));
  const pending = outcomes.filter((outcome) => !isSettled(outcome)).map((outcome) => outcome.id);
  return summarizeProcessing(finished, pending);
}

/**
 * Progress while waiting: a notification whenever a source finishes, and a
 * smaller step every ten quiet polls, so that clients which reset their
 * timeout on progress keep waiting. Progress must grow, so the quiet steps
 * approach the next whole number without reaching it.
 */
function heartbeat(progress: ProgressReporter): (finished: number, total: number) => void {
  let lastFinished = -1;
  let quietPolls = 0;
  return (finished, total) => {
    if (finished > lastFinished) {
      lastFinished = finished;
      quietPolls = 0;
      progress.report(finished, `${finished} of ${total} source(s) processed`, total);
    } else if (++quietPolls % 10 === 0) {
      progress.report(finished + (0.9 * quietPolls) / (quietPolls + 10), `${finished} of ${total} source(s) processed; still working`, total);
    }
  };
}
