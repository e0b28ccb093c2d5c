/**
 * Generation: the selected context numbered in the prompt, the answer
 * streamed with its citations renumbered as they pass (so the streamed text is
 * the stored text), then graded. A provider that fails before the first text
 * leaves the extractive answer, with a note saying so; one that fails midway
 * leaves what was written, with a note that it was cut short.
 */
import type { Reference } from '../../../core/schemas.js';
import type { Logger } from '../../../log.js';
import { describeError } from '../../../log.js';
import { ChatError, type ChatModel } from '../../../providers/chat.js';
import type { AnswerDraft } from '../answerer.js';
import { faviconOf } from '../extractive.js';
import { closeOpenFence } from '../markdown.js';
import { CitationRenumbering } from './citations.js';
import { type ContextSource } from './context-window.js';
import { combinedTrust, gradeSupport } from './grading.js';
import { answerMessages, type AnswerPrompt } from './prompts.js';

export const MODEL_FALLBACK_NOTE = '*The language model did not answer (it could not be reached or it failed; the server log says why), so this answer quotes the knowledge base directly.*\n\n';
export const MODEL_CUT_NOTE = '\n\n*The language model stopped before the answer was complete.*\n';
export const MODEL_LENGTH_NOTE = '\n\n*The answer reached its length limit and may be incomplete.*\n';

/** An answer ready to be recorded. */
export interface WrittenAnswer extends AnswerDraft {
  /** Whether `content` has already been handed to the caller (while it was generated). */
  readonly streamed: boolean;
}

/** The prompt's parts (the question as it stands on its own), and the extractive answer: its evidence score, and the fallback. */
export interface GenerationInput extends AnswerPrompt {
  readonly draft: AnswerDraft;
}

export interface GenerationOptions {
  readonly onText?: ((delta: string) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The extractive answer, saying that the model could not be used. */
const fallback = (draft: AnswerDraft): WrittenAnswer => ({ ...draft, content: `${MODEL_FALLBACK_NOTE}${draft.content}`, streamed: false });

const referenceOf = (source: ContextSource): Reference => ({ link: source.url ?? '', icon: faviconOf(source.url), title: source.title });

export async function generateAnswer(chat: ChatModel, input: GenerationInput, options: GenerationOptions, logger: Logger): Promise<WrittenAnswer> {
  const signal = options.signal;
  const citations = new CitationRenumbering(input.sources);
  let content = '';
  const emit = (text: string) => {
    if (text === '') return;
    content += text;
    options.onText?.(text);
  };
  // A note after text cut inside a code block must not land in the code.
  const closeFence = () => {
    const closed = closeOpenFence(content);
    if (closed !== content) emit(`${content.endsWith('\n') ? '' : '\n'}${closed.trimEnd().split('\n').at(-1) ?? '```'}\n`);
  };
  const stream = chat.stream({
    messages: answerMessages(input),
    temperature: 0.2,
    maxTokens: 1200,
    ...(signal ? { signal } : {}),
  });
  try {
    for await (const delta of stream) emit(citations.push(delta));
    emit(citations.end());
    const { usage, finishReason } = await stream.completion;
    logger.debug('answer generated', { promptTokens: usage?.promptTokens, completionTokens: usage?.completionTokens, finishReason });
    if (finishReason === 'length') {
      closeFence();
      emit(MODEL_LENGTH_NOTE);
    }
  } catch (error) {
    if (signal?.aborted || !(error instanceof ChatError)) throw error;
    logger.warn('language model failed; answering without it', { error: describeError(error) });
    if (content === '') return fallback(input.draft);
    emit(citations.end());
    closeFence();
    emit(MODEL_CUT_NOTE);
    const cited = citations.cited;
    // Ungraded: the evidence score stands, and with none (trust 0) there is nothing to vote on.
    const trustScore = cited.length > 0 ? input.draft.trustScore : 0;
    return { content, references: cited.map(referenceOf), trustScore, answered: trustScore > 0, streamed: true };
  }
  // An empty reply is no answer either.
  if (content === '') return fallback(input.draft);
  const cited = citations.cited;
  // An answer that cites nothing says the sources do not answer (or made it up): nothing to trust or vote on.
  if (cited.length === 0) return { content, references: [], trustScore: 0, answered: false, streamed: true };
  const support = await gradeSupport(chat, input.question, content, cited, signal).catch((error: unknown) => {
    if (signal?.aborted) throw error;
    logger.warn('grading the answer failed; trust is the evidence score', { error: describeError(error) });
    return undefined;
  });
  return { content, references: cited.map(referenceOf), trustScore: combinedTrust(input.draft.trustScore, support), answered: true, streamed: true };
}
