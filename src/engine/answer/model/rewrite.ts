/** A follow-up rewritten by the model into a question that stands on its own. */
import { MAX_QUESTION_CHARS } from '../../../core/schemas.js';
import type { ChatModel } from '../../../providers/chat.js';
import { rewriteMessages, type EarlierTurn } from './prompts.js';

/** Earlier turns shown to the rewrite: the most recent ones. */
const REWRITE_TURNS = 3;

/** The standalone question, or undefined when the reply is not one (empty, or a paragraph). */
export async function standaloneQuestion(
  chat: ChatModel,
  turns: readonly EarlierTurn[],
  message: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const reply = await chat.complete({
    messages: rewriteMessages(turns.slice(-REWRITE_TURNS), message),
    temperature: 0,
    maxTokens: 200,
    ...(signal ? { signal } : {}),
  });
  const question = reply.text
    .trim()
    .replace(/^(?:standalone question|question)\s*:\s*/i, '')
    .replace(/^["'“«]+|["'”»]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return question === '' || question.length > Math.min(MAX_QUESTION_CHARS, 4 * message.length + 400) ? undefined : question;
}
