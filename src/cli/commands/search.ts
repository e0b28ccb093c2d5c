/** `guru-mcp search [<slug>] <question...> [--label L]... [--json]` */
import type { SemanticSearchResponse } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag, stringList } from '../values.js';

export function renderSearch(response: SemanticSearchResponse): string[] {
  if (response.sources.length === 0) return ['No matching sources.'];
  const mode = response.search_mode === undefined ? '' : ` (${response.search_mode} search)`;
  const lines = [`${response.total_sources} source${response.total_sources === 1 ? '' : 's'}${mode}:`];
  response.sources.forEach((source, index) => {
    lines.push(`${index + 1}. ${source.title}`);
    if (source.link) lines.push(`   ${source.link}`);
    if (source.labels.length > 0) lines.push(`   labels: ${source.labels.join(', ')}`);
  });
  return lines;
}

export async function run(context: CommandContext): Promise<number> {
  const labels = stringList(context.values, 'label');
  const response = await withGuru(context, ({ assistant }, { slug, args: words }) =>
    assistant.semanticSearch(slug, { question: words.join(' '), ...(labels.length > 0 ? { labels } : {}) }),
  );
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, response);
  else writeLines(context.terminal.stdout, ...renderSearch(response));
  return 0;
}
