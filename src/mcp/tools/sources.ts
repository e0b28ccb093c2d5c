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
import { Processing, renderProcessing, renderSubmitted, SubmittedSources, summarizeProcessing, summarizeSubmitted } from '../source-lists.js';
import { SourcePage, toSourcePage } from '../source-page.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

export const DEFAULT_SOURCE_PAGE_SIZE = 50;
/** How long add_sources with wait: true waits before answering with what is still pending. */
const WAIT_LIMIT_MS = 5 * 60_000;

const UrlList = (description: string) => UrlListOfRequest.min(1).optional().describe(description);

const needsIntegration = (kind: string) =>
  `needs its ${kind} integration`;

/** The lists of URL sources, by request field: what each takes. */
const URL_SOURCES = {
  website_urls: UrlList(
    'Web pages',
  ),
  youtube_urls: UrlList(
    'YouTube videos',
  ),
  jira_urls: UrlList(`Jira issues; ${needsIntegration('Jira')}`),
  zendesk_urls: UrlList(
    `Zendesk tickets, articles; ${needsIntegration('Zendesk')}`,
  ),
  confluence_urls: UrlList(
    `Confluence pages; ${needsIntegration('Confluence')}`,
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
      'name (title) and content (text, Markdown or HTML)',
    ),
  ...URL_SOURCES,
  labels: Labels.optional().describe('Labels semantic_search can filter on'),
  wait: z
    .boolean()
    .default(false)
    .describe(
      'Return when processed (up to 5 min)',
    ),
  guru_slug: guruSlugParameter,
}));
type AddSourcesParameters = z.infer<typeof AddSourcesParameters>;

/** Made inside the result schemas that hold it: zod finds its description by the object (src/core/lazy-schema.ts). */
const processingResult = () => Processing.optional().describe('Only with wait: true');

const AddSourcesResult = lazySchema(() => SubmittedSources.extend({ processing: processingResult() }));

const ReindexParameters = lazySchema(() => z.object({
  ids: ReindexRequest.shape.ids.describe('Source ids (list_sources)'),
  wait: z
    .boolean()
    .default(false)
    .describe('Return when processed (up to 5 min)'),
  guru_slug: guruSlugParameter,
}));
type ReindexParameters = z.infer<typeof ReindexParameters>;

const MessageResult = lazySchema(() => z.object({ msg: z.string().describe('What the service did, e.g. "Data sources deleted successfully"') }));

const ReindexResult = lazySchema(() => z.object({
  msg: z.string().describe('What the service accepted, e.g. "Reindexing 2 data sources"'),
  processing: processingResult(),
}));

const DeleteSourcesParameters = lazySchema(() => z.object({
  ids: DeleteDataSourcesRequest.shape.ids.describe('Source ids (list_sources)'),
  guru_slug: guruSlugParameter,
}));
type DeleteSourcesParameters = z.infer<typeof DeleteSourcesParameters>;

const ListSourcesParameters = lazySchema(() => z.object({
  page: z.number().int().min(1).default(1),
  page_size: z
    .number()
    .int()
    .min(1)
    .max(MAX_SOURCE_PAGE_SIZE)
    .default(DEFAULT_SOURCE_PAGE_SIZE),
  guru_slug: guruSlugParameter,
}));
type ListSourcesParameters = z.infer<typeof ListSourcesParameters>;

export function registerSourceTools(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'add_sources',
    {
      title: 'Add sources',
      description:
        'Add texts, web pages, YouTube videos, Jira, Zendesk or Confluence pages to the knowledge base. Processed in the background (list_sources: SUCCESS or FAIL); wait: true waits. A text named like an existing one replaces it.',
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
      description:
        'Read sources again by id (URLs fetched anew). wait: true returns when done.',
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
      description:
        'Delete sources by id, for good; answers stop citing them.',
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
      description:
        'List the sources, newest first, with status (NOT_PROCESSED, SUCCESS, FAIL) and error. Paged: next_page.',
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
