/** `get_enduser_data`, `erase_enduser_data`, `upsert_profiles`: what a guru holds about one end user. */
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { isGuruError } from '../../core/errors.js';
import {
  EndUserData,
  ErasedEndUserData,
  Identifier,
  MAX_PROFILE_BYTES,
  MAX_PROFILES_PER_REQUEST,
  UpsertProfilesResponse,
  UserResult,
} from '../../core/schemas.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

/** Records per collection a result carries unless asked for more: a page of answers stays readable. */
const DEFAULT_LIMIT = 20;

const EndUserId = Identifier.describe('external_user_id given to ask');

const GetParameters = lazySchema(() => z.object({
  external_user_id: EndUserId,
  limit: z.number().int().min(1).max(1000).default(DEFAULT_LIMIT).describe('Records per collection'),
  offset: z.number().int().min(0).default(0).describe('Records to skip per collection'),
  guru_slug: guruSlugParameter,
}));
type GetParameters = z.infer<typeof GetParameters>;

const EraseParameters = lazySchema(() => z.object({ external_user_id: EndUserId, guru_slug: guruSlugParameter }));
type EraseParameters = z.infer<typeof EraseParameters>;

const UpsertParameters = lazySchema(() => z.object({
  users: z
    .array(
      z.object({
        external_user_id: EndUserId,
        memory: z
          .record(z.string(), z.unknown())
          .describe(`Any JSON object, at most ${MAX_PROFILE_BYTES / 1024} KiB`),
      }),
    )
    .min(1)
    .max(MAX_PROFILES_PER_REQUEST)
    .describe('Profiles to create or replace'),
  guru_slug: guruSlugParameter,
}));
type UpsertParameters = z.infer<typeof UpsertParameters>;

export function registerEndUserTools(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'get_enduser_data',
    {
      title: "Read an end user's data",
      description:
        'Read all the guru holds about one end user: questions, conversations, searches, profile. Paged: while a has_more is true, raise offset by limit.',
      inputSchema: GetParameters,
      outputSchema: EndUserData,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'get_enduser_data', 'enduser_data', async (args: GetParameters) => {
      const guru = await context.gurus.select('enduser_data', args.guru_slug);
      const data = await context.assistant.getEndUserData(guru, args.external_user_id, { limit: args.limit, offset: args.offset });
      return toolResult(data, renderEndUserData(data));
    }),
  );

  server.registerTool(
    'erase_enduser_data',
    {
      title: "Erase an end user's data",
      description:
        'Erase, for good, all the guru holds about one end user; returns the counts deleted.',
      inputSchema: EraseParameters,
      outputSchema: ErasedEndUserData,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'erase_enduser_data', 'erase_enduser_data', async (args: EraseParameters) => {
      const guru = await context.gurus.select('erase_enduser_data', args.guru_slug);
      const erased = await context.assistant.eraseEndUserData(guru, args.external_user_id);
      const counts = Object.entries(erased.deleted).map(([kind, count]) => `${kind.replace('_', ' ')}: ${String(count)}`);
      return toolResult(erased, `Erased the data of end user ${erased.external_user_id} in ${guru}. Deleted ${counts.join(', ')}.`);
    }),
  );

  server.registerTool(
    'upsert_profiles',
    {
      title: 'Upsert end-user profiles',
      description:
        'Create or replace end-user profiles in bulk: JSON about each user (plan, stack) that goes with their questions.',
      inputSchema: UpsertParameters,
      outputSchema: UpsertProfilesResponse,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'upsert_profiles', 'upsert_profiles', async (args: UpsertParameters) => {
      const guru = await context.gurus.select('upsert_profiles', args.guru_slug);
      try {
        const saved = await context.assistant.upsertProfiles(guru, { users: args.users });
        return toolResult(saved, `Saved ${saved.processed_users} of ${saved.total_users} profile(s) in ${guru}.`);
      } catch (error) {
        if (!isGuruError(error)) throw error;
        const results = UserResult.array().safeParse(error.body?.users_results);
        if (!results.success) throw error;
        return partialFailure(error.message, results.data);
      }
    }),
  );
}

/** Some users failed: which, and why; the others were saved. */
function partialFailure(message: string, results: readonly UserResult[]): CallToolResult {
  const failed = results.filter((result) => !result.success);
  const lines = [
    `${message}: ${results.length - failed.length} of ${results.length} profile(s) saved.`,
    ...failed.map((result) => `- user ${result.user_index}${result.external_user_id ? ` (${result.external_user_id})` : ''}: ${result.errors.join('; ')}`),
  ];
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }] };
}

const excerpt = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function renderEndUserData(result: EndUserData): string {
  const { data } = result;
  const { limit, offset, has_more: more } = data.page;
  const lines = [`# End user ${result.external_user_id}`, ''];
  const section = (title: string, items: string[], hasMore: boolean) => {
    lines.push(`## ${title} (${items.length === 0 ? 'none' : `${offset + 1}–${offset + items.length}${hasMore ? ', more follow' : ''}`})`);
    lines.push(...items, '');
  };
  section(
    'Questions',
    data.questions.map((q) => `- ${q.date_created} [${q.source}] ${excerpt(q.user_question || q.question, 160)} (slug ${q.slug})\n  Answer: ${excerpt(q.content.replace(/\s+/g, ' '))}`),
    more.questions,
  );
  section(
    'Declined questions',
    data.rejected_questions.map((q) => `- ${q.date_created} ${excerpt(q.user_question || q.question, 160)} — ${q.reason}`),
    more.rejected_questions,
  );
  section('Conversations', data.conversations.map((c) => `- session_id ${c.id}, started ${c.date_created}, last used ${c.last_used}`), more.conversations);
  section(
    'Searches',
    data.searches.map((s) => `- ${s.date_created} "${excerpt(s.query, 160)}"${s.selected_labels.length > 0 ? ` [labels: ${s.selected_labels.join(', ')}]` : ''}`),
    more.searches,
  );
  const [profile] = data.profile;
  lines.push('## Profile', profile ? `${JSON.stringify(profile.profile_data)} (updated ${profile.updated_at})` : 'none', '');
  if (offset === 0) lines.push('## Memories', ...(data.memories.length > 0 ? data.memories.map((m) => `- ${m.memory}`) : ['none']), '');
  lines.push(
    Object.values(more).some(Boolean)
      ? `More records exist: call get_enduser_data with offset=${offset + limit} (limit=${limit}).`
      : 'This is everything held about this end user.',
  );
  return lines.join('\n');
}
