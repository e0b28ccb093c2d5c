/** `add_sources` and `list_sources`: the guru's knowledge base. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CreatedDataSource, DataSource, Labels, MAX_SOURCE_PAGE_SIZE, TextSourceInput } from '../../core/schemas.js';
import { isSettled, waitForSources } from '../../core/wait-for-sources.js';
import { ProgressReporter } from '../progress.js';
import { renderCreatedSources, renderProcessing, renderSourcePage } from '../render.js';
import { toolResult } from '../results.js';
import { SourcePage, toSourcePage } from '../source-page.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

export const DEFAULT_SOURCE_PAGE_SIZE = 50;
/** How long add_sources with wait: true waits before answering with what is still pending. */
const WAIT_LIMIT_MS = 5 * 60_000;

const AddSourcesParameters = z.object({
  text_sources: z
    .array(TextSourceInput)
    .min(1)
    .describe(
      'Texts to add: [{name, content}]. name is the title the answers cite; content is plain text or Markdown (headings help the guru cite sections). A name that already exists replaces that source\'s content.',
    ),
  labels: Labels.optional().describe('Labels attached to every source of this call, e.g. ["release-notes"]; semantic_search can filter on them.'),
  wait: z
    .boolean()
    .default(false)
    .describe('Wait until the sources are processed (SUCCESS or FAIL) before returning, sending progress notifications meanwhile. At most 5 minutes.'),
  guru_slug: guruSlugParameter,
});
type AddSourcesParameters = z.infer<typeof AddSourcesParameters>;

const AddSourcesResult = z.object({
  results: z
    .array(CreatedDataSource)
    .describe('One result per submitted item, in order: id, type, title, status (success or exists); the content is not echoed'),
  processing: z
    .object({
      finished: z.array(DataSource).describe('Sources that reached SUCCESS or FAIL'),
      pending: z.array(z.number().int()).describe('Ids still processing when the wait ended'),
    })
    .optional()
    .describe('Only with wait: true'),
});

const ListSourcesParameters = z.object({
  page: z.number().int().min(1).default(1).describe('Page number, from 1'),
  page_size: z
    .number()
    .int()
    .min(1)
    .max(MAX_SOURCE_PAGE_SIZE)
    .default(DEFAULT_SOURCE_PAGE_SIZE)
    .describe(`Sources per page, at most ${MAX_SOURCE_PAGE_SIZE}`),
  guru_slug: guruSlugParameter,
});
type ListSourcesParameters = z.infer<typeof ListSourcesParameters>;

export function registerSourceTools(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'add_sources',
    {
      title: 'Add text to the knowledge base',
      description: [
        "Add texts to the guru's knowledge base so that ask and semantic_search can use them.",
        'Each item returns at once with its id and status: success (accepted) or exists (already in the knowledge base).',
        'Processing is asynchronous: a source is usable once list_sources shows it as SUCCESS (FAIL carries the error).',
        'Pass wait: true to return only when processing has ended.',
        'Sending an existing name replaces that source\'s content.',
      ].join(' '),
      inputSchema: AddSourcesParameters,
      outputSchema: AddSourcesResult,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'add_sources', 'create_sources', async (args: AddSourcesParameters, extra) => {
      const guru = await context.gurus.select('create_sources', args.guru_slug);
      const submitted = await context.assistant.createDataSources(guru, {
        text_sources: args.text_sources,
        ...(args.labels === undefined ? {} : { labels: args.labels }),
      });
      // The spec echoes each text's content back; the model has just sent it, so it is left out here.
      const created = submitted.map(({ content: _content, ...item }) => item);
      const text = renderCreatedSources(guru, created);
      if (!args.wait) {
        return toolResult(
          { results: created },
          `${text}\nProcessing runs in the background: call list_sources to see when they reach SUCCESS or FAIL.`,
        );
      }
      const progress = new ProgressReporter(extra, context.logger);
      const outcomes = await waitForSources(
        context.assistant,
        guru,
        created.map((item) => item.id),
        { signal: extra.signal, onProgress: heartbeat(progress), timeLimitMs: WAIT_LIMIT_MS },
      );
      await progress.flush();
      const finished = outcomes.flatMap(({ source }) => (source !== undefined && source.status !== 'NOT_PROCESSED' ? [source] : []));
      const pending = outcomes.filter((outcome) => !isSettled(outcome)).map((outcome) => outcome.id);
      const processing = { finished, pending };
      return toolResult({ results: created, processing }, `${text}\n${renderProcessing(finished, pending)}`);
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
