/**
 * The chat-completions stand-in answering each step of the answer pipeline
 * (told apart by their system prompts) with a reply the test sets, so that
 * steps that run at the same time never depend on the order they arrive in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelStepSettings } from '../../../src/engine/answer/model/model-pipeline.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import type { Logger } from '../../../src/log.js';
import type { ChatSettings } from '../../../src/providers/chat.js';
import { CONFIG_GUIDE, INSTALL_GUIDE } from '../../contract/fixtures.js';
import {
  startChatCompletionsStandIn,
  streamOf,
  textOf,
  type ChatCall,
  type ChatCompletionsStandIn,
  type ChatScript,
} from '../../stand-ins/chat-completions.js';

export type Step = 'answer' | 'rewrite' | 'reword' | 'pick' | 'grade' | 'memories' | 'follow-ups';

const STEP_OPENINGS: readonly (readonly [string, Step])[] = [
  ['You are the assistant of', 'answer'],
  ['Rewrite the user', 'rewrite'],
  ['You rewrite questions into', 'reword'],
  ['You pick the passages', 'pick'],
  ['You check an answer', 'grade'],
  ['You keep notes', 'memories'],
  ['Suggest up to 3', 'follow-ups'],
];

export function stepOf(call: ChatCall): Step {
  const system = systemMessage(call);
  const step = STEP_OPENINGS.find(([opening]) => system.startsWith(opening))?.[1];
  if (step === undefined) throw new Error(`unknown step: ${system.slice(0, 60)}`);
  return step;
}

/** The text of the user message (its text parts, when it carries images). */
export const userMessage = (call: ChatCall): string => textOf(call.body.messages.find((message) => message.role === 'user'));
export const systemMessage = (call: ChatCall): string => textOf(call.body.messages.find((message) => message.role === 'system'));

/** The number the prompt gave the source titled `title`. */
export function sourceNumber(call: ChatCall, title: string): number {
  const match = new RegExp(`^\\[(\\d+)\\] ${title}`, 'm').exec(userMessage(call));
  if (!match) throw new Error(`no source "${title}" in the prompt`);
  return Number(match[1]);
}

export type Replies = { [S in Step]: (call: ChatCall) => ChatScript };

const json = (value: unknown): ChatScript => ({ kind: 'json', text: JSON.stringify(value) });

/** The numbers of the passages offered to the picking step. */
export const offeredPassages = (call: ChatCall): number[] => [...userMessage(call).matchAll(/^\[(\d+)\] /gm)].map((match) => Number(match[1]));

/**
 * Defaults: an answer citing source 1, the follow-up repeated as its own rewrite, no rewording,
 * every passage picked, full support, no memories, no follow-ups.
 */
export const defaultReplies = (): Replies => ({
  answer: () => streamOf('The answer is in the first source [1].'),
  rewrite: (call) => ({ kind: 'json', text: /Last message: (.*)$/s.exec(userMessage(call))?.[1] ?? '' }),
  reword: () => json({ rewrites: [] }),
  pick: (call) => json({ passages: offeredPassages(call) }),
  grade: () => json({ grades: [{ source: 1, support: 'full' }] }),
  memories: () => json({ memories: [] }),
  'follow-ups': () => json({ questions: [] }),
});

export { json as jsonReply };

export const stepCalls = (standIn: ChatCompletionsStandIn, step: Step): ChatCall[] => standIn.calls.filter((call) => stepOf(call) === step);

/** An engine over a fresh data directory whose language model is the stand-in, answering with `replies`. */
export interface ModelEngine {
  readonly dir: string;
  readonly model: ChatCompletionsStandIn;
  /** Change a step's reply for the next calls. */
  readonly replies: Replies;
  engine: LocalEngine;
  /** Opens the engine again on the same data, with the model at `baseUrl`. */
  reopen(baseUrl: string): Promise<void>;
  close(): Promise<void>;
}

/** Each guru gets the install and configuration guides of the contract fixtures. */
export async function openModelEngine(
  gurus: readonly { readonly slug: string; readonly name: string }[],
  llm: Partial<ChatSettings> = {},
  logger?: Logger,
  modelSteps?: Partial<ModelStepSettings>,
): Promise<ModelEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'guru-model-'));
  const replies = defaultReplies();
  const model = await startChatCompletionsStandIn({ respond: (call) => replies[stepOf(call)](call) });
  const open = (baseUrl: string) =>
    LocalEngine.open({ dataDir: dir, ...(logger ? { logger } : {}), ...(modelSteps ? { modelSteps } : {}), llm: { model: 'stand-in', maxAttempts: 1, responseTimeoutMs: 10_000, stallTimeoutMs: 10_000, ...llm, baseUrl } });
  const opened: ModelEngine = {
    dir,
    model,
    replies,
    engine: await open(model.baseUrl),
    async reopen(baseUrl) {
      await opened.engine.close();
      opened.engine = await open(baseUrl);
    },
    async close() {
      await opened.engine.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  for (const guru of gurus) {
    await opened.engine.createGuru(guru);
    await opened.engine.createDataSources(guru.slug, {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration', content: CONFIG_GUIDE },
      ],
    });
  }
  await opened.engine.whenIdle();
  return opened;
}
