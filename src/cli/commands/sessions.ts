/** `guru-mcp sessions [<slug>] [--page N] [--search TEXT] [--json]` */
import type { SessionList, SessionSummary } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { UsageError } from '../failures.js';
import { columns, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag, stringOption } from '../values.js';

const GROUPS = [
  ['today', 'Today'],
  ['last_week', 'Last 7 days'],
  ['older', 'Older'],
] as const satisfies readonly (readonly [keyof SessionList, string])[];

export function renderSessions(list: SessionList, page: number): string[] {
  const lines: string[] = [];
  for (const [key, title] of GROUPS) {
    const sessions: SessionSummary[] = list[key];
    if (sessions.length === 0) continue;
    if (lines.length > 0) lines.push('');
    lines.push(`${title}:`, ...columns(sessions.map((session) => [`  ${session.id}`, session.last_used, session.root_question_name])));
  }
  if (lines.length === 0) lines.push('No sessions.');
  if (list.has_more) lines.push('', `More on the next page: --page ${page + 1}`);
  return lines;
}

function pageOf(context: CommandContext): number {
  const text = stringOption(context.values, 'page') ?? '1';
  const page = Number(text);
  if (!Number.isInteger(page) || page < 1) throw new UsageError(`--page must be a positive whole number, not "${text}"`, 'sessions');
  return page;
}

export async function run(context: CommandContext): Promise<number> {
  const page = pageOf(context);
  const list = await withGuru(context, ({ assistant }, { slug }) =>
    assistant.listSessions(slug, { page_num: page, search_query: stringOption(context.values, 'search') ?? '' }),
  );
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, list);
  else writeLines(context.terminal.stdout, ...renderSessions(list, page));
  return 0;
}
