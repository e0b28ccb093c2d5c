/** Durable facts an end user states about themselves or their setup, picked out by the model (issue 13). */
import * as z from 'zod';
import type { ChatModel } from '../../../providers/chat.js';
import { jsonReply } from './json-reply.js';
import { memoryMessages } from './prompts.js';

/** At most this many facts from one message, each at most this long: notes, not transcripts. */
const MAX_FACTS = 5;
const MAX_FACT_CHARS = 200;

const Facts = z.object({ memories: z.array(z.string()) });

export async function statedFacts(chat: ChatModel, message: string, signal: AbortSignal | undefined): Promise<string[]> {
  const reply = await chat.complete({
    messages: memoryMessages(message),
    temperature: 0,
    maxTokens: 300,
    responseFormat: 'json',
    ...(signal ? { signal } : {}),
  });
  const facts = jsonReply(reply.text, Facts)?.memories ?? [];
  return facts
    .map((fact) => fact.trim().replace(/\s+/g, ' '))
    .filter((fact) => fact !== '' && fact.length <= MAX_FACT_CHARS)
    .slice(0, MAX_FACTS);
}
