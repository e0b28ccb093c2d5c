/**
 * The chat-completions stand-in answering each step of the answer pipeline
 * (told apart by their system prompts) with a reply the test sets, so that
 * steps that run at the same time never depend on the order they arrive in.
 */
import { streamOf, type ChatCall, type ChatCompletionsStandIn, type ChatScript } from '../../stand-ins/chat-completions.js';

export type Step = 'answer' | 'rewrite' | 'grade' | 'memories' | 'follow-ups';

const STEP_OPENINGS: readonly (readonly [string, Step])[] = [
  ['You are the assistant of', 'answer'],
  ['Rewrite the user', 'rewrite'],
  ['You check an answer', 'grade'],
  ['You keep notes', 'memories'],
  ['Suggest up to 3', 'follow-ups'],
];

export function stepOf(call: ChatCall): Step {
  const system = call.body.messages.find((message) => message.role === 'system')?.content ?? '';
  const step = STEP_OPENINGS.find(([opening]) => system.startsWith(opening))?.[1];
  if (step === undefined) throw new Error(`unknown step: ${system.slice(0, 60)}`);
  return step;
}

export const userMessage = (call: ChatCall): string => call.body.messages.find((message) => message.role === 'user')?.content ?? '';
export const systemMessage = (call: ChatCall): string => call.body.messages.find((message) => message.role === 'system')?.content ?? '';

/** The number the prompt gave the source titled `title`. */
export function sourceNumber(call: ChatCall, title: string): number {
  const match = new RegExp(`^\\[(\\d+)\\] ${title}`, 'm').exec(userMessage(call));
  if (!match) throw new Error(`no source "${title}" in the prompt`);
  return Number(match[1]);
}

export type Replies = { [S in Step]: (call: ChatCall) => ChatScript };

const json = (value: unknown): ChatScript => ({ kind: 'json', text: JSON.stringify(value) });

/** Defaults: an answer citing source 1, the follow-up repeated as its own rewrite, full support, no memories, no follow-ups. */
export const defaultReplies = (): Replies => ({
  answer: () => streamOf('The answer is in the first source [1].'),
  rewrite: (call) => ({ kind: 'json', text: /Last message: (.*)$/s.exec(userMessage(call))?.[1] ?? '' }),
  grade: () => json({ grades: [{ source: 1, support: 'full' }] }),
  memories: () => json({ memories: [] }),
  'follow-ups': () => json({ questions: [] }),
});

export { json as jsonReply };

export const stepCalls = (standIn: ChatCompletionsStandIn, step: Step): ChatCall[] => standIn.calls.filter((call) => stepOf(call) === step);
