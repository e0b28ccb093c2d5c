/**
 * The chat-completions wire format as servers send it: stream chunks (`choices[0].delta.content`,
 * `finish_reason`, `usage` in the last chunk, `[DONE]`), whole JSON answers, and the error bodies
 * of the OpenAI-compatible servers.
 */
import * as z from 'zod';
import type { ChatErrors } from './chat-errors.js';
import type { ServerSentEvent } from './sse.js';

export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface ChatCompletion {
  readonly text: string;
  /** As the server names it: `stop`, `length` (cut at maxTokens), …; undefined when it names none. */
  readonly finishReason: string | undefined;
  /** Undefined when the server does not report usage. */
  readonly usage: TokenUsage | undefined;
}

const Usage = z.object({ prompt_tokens: z.number(), completion_tokens: z.number() });

const StreamChunk = z.object({
  choices: z
    .array(z.object({ delta: z.object({ content: z.string().nullish() }).nullish(), finish_reason: z.string().nullish() }))
    .nullish(),
  usage: Usage.nullish(),
});

const WholeAnswer = z.object({
  choices: z
    .array(z.object({ message: z.object({ content: z.string().nullish() }), finish_reason: z.string().nullish() }))
    .min(1),
  usage: Usage.nullish(),
});

/** `{error: {message, code}}` (OpenAI, vLLM, Ollama), `{error: "…"}` (llama.cpp, older servers), `{message}`, `{detail}`. */
const ErrorBody = z.union([
  z.object({ error: z.object({ message: z.string(), code: z.union([z.number(), z.string()]).nullish() }) }),
  z.object({ error: z.string() }),
  z.object({ message: z.string() }),
  z.object({ detail: z.string() }),
]);
type ErrorBody = z.infer<typeof ErrorBody>;

const usageOf = (usage: z.infer<typeof Usage> | null | undefined): TokenUsage | undefined =>
  usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } : undefined;

const messageOf = (body: ErrorBody): string =>
  'error' in body ? (typeof body.error === 'string' ? body.error : body.error.message) : 'message' in body ? body.message : body.detail;

const codeOf = (body: ErrorBody): number | undefined =>
  'error' in body && typeof body.error === 'object' && typeof body.error.code === 'number' ? body.error.code : undefined;

function parseJson(text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The server's own message in an error body, else the body itself. */
export function errorDetail(body: string): string {
  const json = parseJson(body);
  const parsed = json.ok ? ErrorBody.safeParse(json.value) : undefined;
  return parsed?.success ? messageOf(parsed.data) : body;
}

/** A whole (non-streamed) answer. */
export function wholeAnswer(body: string, errors: ChatErrors): ChatCompletion {
  const json = parseJson(body);
  if (!json.ok) throw errors.malformed(`answered with something other than JSON (${errors.excerpt(body, 200)})`);
  const parsed = WholeAnswer.safeParse(json.value);
  if (!parsed.success) throw errors.malformed(`answered without choices[0].message (${errors.excerpt(body, 200)})`);
  const [choice] = parsed.data.choices;
  return { text: choice?.message.content ?? '', finishReason: choice?.finish_reason ?? undefined, usage: usageOf(parsed.data.usage) };
}

/** The answer a stream of events builds: its text so far, finish reason and usage, and whether `[DONE]` came. */
export class StreamedAnswer {
  readonly #errors: ChatErrors;
  readonly #text: string[] = [];
  #finishReason: string | undefined;
  #usage: TokenUsage | undefined;
  #done = false;

  constructor(errors: ChatErrors) {
    this.#errors = errors;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Takes one event; returns the text it adds. Throws the error a server sent in the stream. */
  take(event: ServerSentEvent): string | undefined {
    const data = event.data.trim();
    if (data === '[DONE]') {
      this.#done = true;
      return undefined;
    }
    if (data === '') return undefined;
    const json = parseJson(data);
    if (!json.ok) {
      if (event.event === 'error') throw this.#errors.streamed(data, undefined);
      throw this.#errors.malformed(`sent a stream chunk that is not JSON (${this.#errors.excerpt(data, 200)})`);
    }
    const error = ErrorBody.safeParse(json.value);
    if (error.success) throw this.#errors.streamed(messageOf(error.data), codeOf(error.data));
    if (event.event === 'error') throw this.#errors.streamed(data, undefined);
    const chunk = StreamChunk.safeParse(json.value);
    if (!chunk.success) throw this.#errors.malformed(`sent a stream chunk without choices (${this.#errors.excerpt(data, 200)})`);
    this.#usage = usageOf(chunk.data.usage) ?? this.#usage;
    const [choice] = chunk.data.choices ?? [];
    if (choice?.finish_reason) this.#finishReason = choice.finish_reason;
    const text = choice?.delta?.content;
    if (!text) return undefined;
    this.#text.push(text);
    return text;
  }

  /** The whole answer; fails when the stream ended with neither `[DONE]` nor a finish reason. */
  completion(): ChatCompletion {
    if (!this.#done && this.#finishReason === undefined) throw this.#errors.endedEarly();
    return { text: this.#text.join(''), finishReason: this.#finishReason, usage: this.#usage };
  }
}
