/** `list_sessions`, `get_session`, `delete_session`: conversations with the guru. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { DeletedSession, ListSessionsRequest, SessionConversation, SessionId as SessionIdText, SessionList } from '../../core/schemas.js';
import type { ConversationTurn } from '../../core/schemas.js';
import { renderConversation, renderSessionList } from '../render.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

/** Characters of turns (as JSON) one get_session result carries at most; the rest comes on request. */
export const CONVERSATION_BUDGET = 40_000;

const SessionId = SessionIdText.describe('From ask or list_sessions');

const ListSessionsParameters = lazySchema(() => z.object({
  page_num: ListSessionsRequest.shape.page_num,
  search_query: ListSessionsRequest.shape.search_query.describe(
    'Text the questions contain',
  ),
  external_user_id: ListSessionsRequest.shape.external_user_id.describe('Only this end user\'s sessions'),
  guru_slug: guruSlugParameter,
}));
type ListSessionsParameters = z.infer<typeof ListSessionsParameters>;

const GetSessionParameters = lazySchema(() => z.object({
  session_id: SessionId,
  from_turn: z
    .number()
    .int()
    .min(1)
    .default(1)
    .describe('First turn to return'),
  guru_slug: guruSlugParameter,
}));
type GetSessionParameters = z.infer<typeof GetSessionParameters>;

const SessionPart = lazySchema(() => SessionConversation.extend({
  total_turns: z.number().int().describe('Turns in the whole conversation'),
  next_from_turn: z
    .number()
    .int()
    .nullable()
    .describe('Pass as from_turn to read the turns after these; null when the last turn is included'),
}));

const DeleteSessionParameters = lazySchema(() => z.object({ session_id: SessionId, guru_slug: guruSlugParameter }));
type DeleteSessionParameters = z.infer<typeof DeleteSessionParameters>;

export function registerSessionTools(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'list_sessions',
    {
      title: 'List conversation sessions',
      description:
        'List conversations, newest first (id, first question). Paged: has_more.',
      inputSchema: ListSessionsParameters,
      outputSchema: SessionList,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'list_sessions', 'list_sessions', async (args: ListSessionsParameters) => {
      const { guru_slug, ...request } = args;
      const guru = await context.gurus.select('list_sessions', guru_slug);
      const list = await context.assistant.listSessions(guru, request);
      return toolResult(list, renderSessionList(list, request.page_num));
    }),
  );

  server.registerTool(
    'get_session',
    {
      title: 'Read a conversation session',
      description:
        'Read a conversation\'s turns: question, answer, references, trust score, vote. In parts: pass next_from_turn as from_turn.',
      inputSchema: GetSessionParameters,
      outputSchema: SessionPart,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'get_session', 'get_session', async (args: GetSessionParameters) => {
      const guru = await context.gurus.select('get_session', args.guru_slug);
      const session = await context.assistant.getSession(guru, args.session_id);
      const total = session.conversation.length;
      const turns = turnsWithinBudget(session.conversation.slice(args.from_turn - 1));
      const next = args.from_turn - 1 + turns.length < total ? args.from_turn + turns.length : null;
      const part = { ...session, conversation: turns, total_turns: total, next_from_turn: next };
      const notes: string[] = [];
      if (turns.length === 0) {
        notes.push(`This session has ${total} turn(s); from_turn=${args.from_turn} is past the end.`);
      } else if (args.from_turn > 1 || next !== null) {
        const last = args.from_turn + turns.length - 1;
        notes.push(
          `Showing turns ${args.from_turn}–${last} of ${total}.${next === null ? '' : ` Call get_session with from_turn=${next} for the next turns.`}`,
        );
      }
      const text = [renderConversation(session, turns, args.from_turn), ...notes].join('\n\n');
      return toolResult(part, text);
    }),
  );

  server.registerTool(
    'delete_session',
    {
      title: 'Delete a conversation session',
      description:
        'Delete a conversation, for good.',
      inputSchema: DeleteSessionParameters,
      outputSchema: DeletedSession,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'delete_session', 'delete_session', async (args: DeleteSessionParameters) => {
      const guru = await context.gurus.select('delete_session', args.guru_slug);
      const deleted = await context.assistant.deleteSession(guru, args.session_id);
      return toolResult(deleted, `${deleted.msg} (session ${deleted.session_id}).`);
    }),
  );
}

/** The leading turns that fit the budget; always at least one, so that every part makes progress. */
function turnsWithinBudget(turns: ConversationTurn[]): ConversationTurn[] {
  let used = 0;
  let count = 0;
  for (const turn of turns) {
    used += JSON.stringify(turn).length;
    if (count > 0 && used > CONVERSATION_BUDGET) break;
    count++;
  }
  return turns.slice(0, count);
}
