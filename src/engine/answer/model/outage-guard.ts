/**
 * The language model left alone for a while after it could not be reached or
 * did not start answering in time: meanwhile every step falls back at once
 * (extractive answer, question as typed, follow-ups from the knowledge)
 * instead of each waiting out the same timeout again.
 */
import { ChatError, ChatStream, type ChatCompletion, type ChatModel, type ChatRequest, type CompletionRequest } from '../../../providers/chat.js';

/** How long the model is left alone after an outage. */
export const OUTAGE_PAUSE_MS = 30_000;

const isOutage = (error: unknown): boolean => error instanceof ChatError && (error.failure === 'unreachable' || error.failure === 'timeout');

export class OutageGuard implements ChatModel {
  readonly #chat: ChatModel;
  readonly #now: () => number;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  #outage: ChatError | undefined;

  constructor(chat: ChatModel, now: () => number = () => performance.now()) {
    this.#chat = chat;
    this.#now = now;
  }

  stream(request: ChatRequest): ChatStream {
    return new ChatStream(this.#streamed(request), () => new ChatError('stopped', 'The reader stopped reading the answer of the language model'));
  }

  async complete(request: CompletionRequest): Promise<ChatCompletion> {
    this.#refuseWhilePaused();
    try {
      return await this.#chat.complete(request);
    } catch (error) {
      this.#note(error);
      throw error;
    }
  }

  async *#streamed(request: ChatRequest): AsyncGenerator<string, ChatCompletion> {
    this.#refuseWhilePaused();
    const inner = this.#chat.stream(request);
    try {
      yield* inner;
      return await inner.completion;
    } catch (error) {
      this.#note(error);
      throw error;
    }
  }

  #refuseWhilePaused(): void {
    const left = this.#pausedUntil - this.#now();
    if (this.#outage !== undefined && left > 0) {
      throw new ChatError('unreachable', `${this.#outage.message} (tried again in ${Math.ceil(left / 1000)} s)`);
    }
  }

  #note(error: unknown): void {
    if (!isOutage(error)) return;
    this.#outage = error as ChatError;
    this.#pausedUntil = this.#now() + OUTAGE_PAUSE_MS;
  }
}
