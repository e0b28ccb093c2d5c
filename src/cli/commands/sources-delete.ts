/** `guru-mcp sources-delete [<slug>] ID... [--json]` */
import type { Assistant } from '../../core/assistant.js';
import { MAX_DELETE_IDS, MAX_SOURCE_PAGE_SIZE, type DataSource } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { UsageError } from '../failures.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

function idsOf(args: readonly string[]): number[] {
  const ids = args.map((arg) => {
    if (!/^\d{1,15}$/.test(arg) || Number(arg) < 1) throw new UsageError(`source ids are whole numbers from 1 (see guru-mcp sources), not "${arg}"`, 'sources-delete');
    return Number(arg);
  });
  if (ids.length > MAX_DELETE_IDS) throw new UsageError(`at most ${MAX_DELETE_IDS} ids at once, not ${ids.length}`, 'sources-delete');
  return [...new Set(ids)];
}

/** The guru's sources of these ids, read from its listing before they go: what is printed as deleted. */
async function sourcesOf(assistant: Assistant, slug: string, ids: readonly number[]): Promise<DataSource[]> {
  const wanted = new Set(ids);
  const found: DataSource[] = [];
  for (let page = 1; found.length < wanted.size; page += 1) {
    const listing = await assistant.listDataSources(slug, { page, page_size: MAX_SOURCE_PAGE_SIZE });
    found.push(...listing.results.filter((source) => wanted.has(source.id)));
    if (page * MAX_SOURCE_PAGE_SIZE >= listing.count) break;
  }
  return found;
}

export async function run(context: CommandContext): Promise<number> {
  const { slug, msg, deleted, passedOver } = await withGuru(context, async ({ assistant }, { slug, args }) => {
    const ids = idsOf(args);
    const deleted = await sourcesOf(assistant, slug, ids);
    const { msg } = await assistant.deleteDataSources(slug, { ids });
    const held = new Set(deleted.map((source) => source.id));
    return { slug, msg, deleted, passedOver: ids.filter((id) => !held.has(id)) };
  });
  if (flag(context.values, 'json')) {
    writeJson(context.terminal.stdout, { msg, deleted, passed_over: passedOver });
    return 0;
  }
  writeLines(
    context.terminal.stdout,
    `Deleted ${deleted.length} data source${deleted.length === 1 ? '' : 's'} of ${slug}${deleted.length === 0 ? '.' : ':'}`,
    ...deleted.map((source) => `  #${source.id} ${source.type} ${source.title ?? source.url ?? ''}`.trimEnd()),
    ...(passedOver.length === 0 ? [] : [`Not sources of ${slug}, passed over: ${passedOver.join(', ')}`]),
  );
  return 0;
}
