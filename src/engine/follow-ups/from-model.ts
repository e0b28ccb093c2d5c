/**
 * Follow-up examples written by the language model from the answer (and the
 * questions of its session, so that none is asked twice), each kept only when
 * the knowledge base finds something for it.
 */
import * as z from 'zod';
import type { ChatModel } from '../../providers/chat.js';
import { jsonReply } from '../answer/model/json-reply.js';
import { followUpMessages } from '../answer/model/prompts.js';
import { parseQuery } from '../search/query.js';
import type { Retriever } from '../search/retriever.js';
import { isLinkList } from '../text/link-lists.js';
import type { AnsweredTurn } from './from-knowledge.js';

const MAX_FOLLOW_UPS = 3;
const MAX_QUESTION_CHARS = 200;

const Questions = z.object({ questions: z.array(z.string()) });

const sameQuestion = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Up to MAX_FOLLOW_UPS questions after `turn`, the last of `session`; undefined when the reply holds none. */
export async function suggestFromModel(
  chat: ChatModel,
  retriever: Retriever,
  guruId: number,
  turn: AnsweredTurn,
  session: readonly AnsweredTurn[],
): Promise<string[] | undefined> {
  const asked = session.map((earlier) => earlier.question);
  const reply = await chat.complete({
    messages: followUpMessages(turn.question, turn.content, asked.slice(0, -1)),
    temperature: 0.5,
    maxTokens: 300,
    responseFormat: 'json',
  });
  const examples: string[] = [];
  for (const raw of jsonReply(reply.text, Questions)?.questions ?? []) {
    const question = raw.trim().replace(/\s+/g, ' ');
    if (question === '' || question.length > MAX_QUESTION_CHARS || [...asked, ...examples].some((other) => sameQuestion(other, question))) continue;
    const query = parseQuery(question);
    // Found only in a list of links (an index), it would be declined.
    if (query.match === undefined || !(await retriever.search(guruId, query, { limit: 3 })).some((hit) => !isLinkList(hit.body))) continue;
    examples.push(question);
    if (examples.length === MAX_FOLLOW_UPS) break;
  }
  return examples.length > 0 ? examples : undefined;
}
