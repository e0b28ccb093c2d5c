/** `guru-mcp crawl-stop <slug> <id> [--json]` */
import { withBackend } from '../backend.js';
import { crawlIdOf, renderCrawl } from '../crawls.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const [slug, id] = context.args as [string, string];
  const crawlId = crawlIdOf(id, 'crawl-stop');
  const crawl = await withBackend(context, ({ assistant }) => assistant.stopCrawl(slug, crawlId));
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, crawl);
  else writeLines(context.terminal.stdout, ...renderCrawl(crawl, slug));
  return 0;
}
