/** `guru-mcp crawl-status [<slug>] <id> [--json]` */
import { withGuru } from '../backend.js';
import { crawlIdOf, renderCrawl } from '../crawls.js';
import { commandLineOf } from '../invocation.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const { slug, crawl } = await withGuru(context, async ({ assistant }, { slug, args: [id] }) => ({
    slug,
    crawl: await assistant.crawlStatus(slug, crawlIdOf(id!, 'crawl-status')),
  }));
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, crawl);
  else writeLines(context.terminal.stdout, ...renderCrawl(crawl, slug, commandLineOf(context.config)));
  return 0;
}
