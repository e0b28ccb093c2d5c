/** `guru-mcp enduser show [<slug>] <external_user_id> [--json]` */
import type { Assistant } from '../../core/assistant.js';
import type { EndUserData } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

/** The largest page the API gives. */
const PAGE_LIMIT = 1000;

/** Every page of the end user's data, merged into one bundle. */
async function wholeRecord(assistant: Assistant, slug: string, externalUserId: string): Promise<EndUserData> {
  const first = await assistant.getEndUserData(slug, externalUserId, { limit: PAGE_LIMIT, offset: 0 });
  const data = { ...first.data };
  let page = first.data.page;
  while (Object.values(page.has_more).some(Boolean)) {
    const next = await assistant.getEndUserData(slug, externalUserId, { limit: PAGE_LIMIT, offset: page.offset + page.limit });
    data.questions = [...data.questions, ...next.data.questions];
    data.rejected_questions = [...data.rejected_questions, ...next.data.rejected_questions];
    data.conversations = [...data.conversations, ...next.data.conversations];
    data.searches = [...data.searches, ...next.data.searches];
    page = next.data.page;
  }
  const total = Math.max(data.questions.length, data.rejected_questions.length, data.conversations.length, data.searches.length);
  data.page = { limit: Math.max(total, 1), offset: 0, has_more: page.has_more };
  return { external_user_id: first.external_user_id, data };
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function renderRecord(record: EndUserData): string[] {
  const { data } = record;
  const lines = [`End user ${record.external_user_id}`];
  const section = (title: string, items: string[]) => lines.push('', `${title} (${items.length}):`, ...(items.length > 0 ? items : ['  none']));
  section(
    'Questions',
    data.questions.map((q) => `  ${q.date_created}  ${q.source}  ${oneLine(q.user_question || q.question)}\n    ${oneLine(q.content).slice(0, 160)}`),
  );
  section('Declined questions', data.rejected_questions.map((q) => `  ${q.date_created}  ${oneLine(q.user_question || q.question)}  (${q.reason})`));
  section('Conversations', data.conversations.map((c) => `  ${c.id}  started ${c.date_created}  last used ${c.last_used}`));
  section(
    'Searches',
    data.searches.map((s) => `  ${s.date_created}  ${oneLine(s.query)}${s.selected_labels.length > 0 ? `  [${s.selected_labels.join(', ')}]` : ''}`),
  );
  const [profile] = data.profile;
  lines.push('', 'Profile:', profile ? `  ${JSON.stringify(profile.profile_data)}  (updated ${profile.updated_at})` : '  none');
  section('Memories', data.memories.map((m) => `  ${m.memory}`));
  return lines;
}

export async function run(context: CommandContext): Promise<number> {
  const record = await withGuru(context, ({ assistant }, { slug, args: [externalUserId] }) => wholeRecord(assistant, slug, externalUserId!));
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, record);
  else writeLines(context.terminal.stdout, ...renderRecord(record));
  return 0;
}
