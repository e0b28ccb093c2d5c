/**
 * An OpenAI-compatible chat-completions endpoint (`POST /v1/chat/completions`), scripted per test.
 * Each request takes the next queued script (or one computed from the request); without one it
 * answers "Answer to: <last user message>". A script streams chunks as server-sent events (with
 * pauses, raw bytes, malformed chunks, usage, and an ending: `[DONE]`, end of body without it, a
 * destroyed socket or a stall), answers one JSON body, or fails with a status. Every request is
 * recorded with its parsed body and headers, so tests can assert the prompt, model and key.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  bearerToken,
  json,
  recordOf,
  replying,
  startLoopbackServer,
  type LoopbackServer,
  type RecordedRequest,
  type Reply,
} from '../support/loopback-server.js';

export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/** When a step is sent: after `delayMs`, and once `after` settled (e.g. when the test has read some text). */
interface StepTiming {
  readonly delayMs?: number;
  readonly after?: Promise<unknown>;
}

/** One piece of a stream: a text delta, or bytes sent exactly as given. */
export type StreamStep = ({ readonly text: string } | { readonly raw: string }) & StepTiming;

export interface StreamScript {
  readonly kind: 'stream';
  readonly steps: readonly StreamStep[];
  /**
   * `done` (default): a finish chunk, the usage chunk when the request asked for it, `[DONE]`.
   * `eof`: the body ends right after the steps. `destroy`: the socket is destroyed after them.
   * `stall`: nothing more is sent and the response stays open.
   */
  readonly ending?: 'done' | 'eof' | 'destroy' | 'stall';
  readonly finishReason?: string;
  /** Default: words of the prompt and text chunks sent. */
  readonly usage?: Usage;
  /** Line ending of the events; default LF. */
  readonly newline?: '\n' | '\r\n';
}

/** A whole answer in one JSON body (after `delayMs`). */
export interface JsonScript {
  readonly kind: 'json';
  readonly text: string | null;
  readonly finishReason?: string;
  /** Default: words of the prompt and of the text. */
  readonly usage?: Usage;
  readonly delayMs?: number;
}

/** An error status, with Retry-After or other headers and a body (objects are sent as JSON). */
export interface StatusScript {
  readonly kind: 'status';
  readonly status: number;
  readonly body?: string | object;
  readonly headers?: Readonly<Record<string, string>>;
}

export type ChatScript = StreamScript | JsonScript | StatusScript;

/** A part of a message's content, as the OpenAI wire format has them (text, or an image by URL). */
export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } };

export interface ChatMessage {
  readonly role: string;
  readonly content: string | readonly ContentPart[];
}

/** The text of a message: its content, or its text parts joined. */
export const textOf = (message: ChatMessage | undefined): string =>
  message === undefined
    ? ''
    : typeof message.content === 'string'
      ? message.content
      : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');

export interface ChatCall {
  readonly headers: IncomingHttpHeaders;
  /** The request's query string, e.g. `?api-version=2024-10-21` ('' for none). */
  readonly search: string;
  /** The parsed request body. */
  readonly body: {
    readonly model: string;
    readonly messages: readonly ChatMessage[];
    readonly stream?: boolean;
    readonly stream_options?: { readonly include_usage?: boolean };
    readonly [field: string]: unknown;
  };
}

export interface ChatCompletionsStandInOptions {
  /** Requests without `Authorization: Bearer <apiKey>` get 401 (the body echoes the key sent, as some servers do). */
  readonly apiKey?: string;
  /** Models served; other names get 404 as from Ollama. Default: any. */
  readonly models?: readonly string[];
  /** Answers a request when no script is queued; default "Answer to: <last user message>". */
  readonly respond?: (call: ChatCall) => ChatScript;
}

export interface ChatCompletionsStandIn {
  readonly server: LoopbackServer;
  /** The API root to configure, ending in /v1. */
  readonly baseUrl: string;
  /** The chat-completions requests so far. */
  readonly calls: readonly ChatCall[];
  /** Queues scripts for the next requests, in order. */
  script(...scripts: (ChatScript | ((call: ChatCall) => ChatScript))[]): void;
  close(): Promise<void>;
}

/** A stream of `text` in pieces of about one word each. */
export function streamOf(text: string, options: { readonly delayMs?: number } = {}): ChatScript {
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  return { kind: 'stream', steps: pieces.map((piece) => ({ text: piece, ...options })) };
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const promptWords = (call: ChatCall): number => words(call.body.messages.map(textOf).join(' '));

function chunk(model: string, choice: object | undefined, extra: object = {}): string {
  return JSON.stringify({
    id: 'chatcmpl-stand-in',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: choice === undefined ? [] : [{ index: 0, ...choice }],
    ...extra,
  });
}

async function stream(response: ServerResponse, call: ChatCall, script: StreamScript): Promise<void> {
  const newline = script.newline ?? '\n';
  const event = (data: string) => `data: ${data}${newline}${newline}`;
  const model = call.body.model;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
  response.write(event(chunk(model, { delta: { role: 'assistant', content: '' }, finish_reason: null })));
  let sent = 0;
  for (const step of script.steps) {
    if (step.delayMs) await sleep(step.delayMs);
    await step.after;
    if (response.destroyed) return;
    if ('raw' in step) response.write(step.raw);
    else {
      response.write(event(chunk(model, { delta: { content: step.text }, finish_reason: null })));
      sent += 1;
    }
  }
  switch (script.ending ?? 'done') {
    case 'eof':
      response.end();
      return;
    case 'destroy':
      response.socket?.destroy();
      return;
    case 'stall':
      return;
    case 'done': {
      response.write(event(chunk(model, { delta: {}, finish_reason: script.finishReason ?? 'stop' })));
      if (call.body.stream_options?.include_usage) {
        const usage = script.usage ?? { prompt_tokens: promptWords(call), completion_tokens: sent };
        response.write(event(chunk(model, undefined, { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })));
      }
      response.end(event('[DONE]'));
    }
  }
}

async function whole(call: ChatCall, script: JsonScript): Promise<Reply> {
  if (script.delayMs) await sleep(script.delayMs);
  const usage = script.usage ?? {
    prompt_tokens: promptWords(call),
    completion_tokens: words(script.text ?? ''),
  };
  return json(200, {
    id: 'chatcmpl-stand-in',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: call.body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: script.text }, finish_reason: script.finishReason ?? 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  });
}

function defaultScript(call: ChatCall): ChatScript {
  const question = textOf([...call.body.messages].reverse().find((message) => message.role === 'user'));
  const text = `Answer to: ${question}`;
  return call.body.stream ? streamOf(text) : { kind: 'json', text };
}

export async function startChatCompletionsStandIn(options: ChatCompletionsStandInOptions = {}): Promise<ChatCompletionsStandIn> {
  const calls: ChatCall[] = [];
  const queue: (ChatScript | ((call: ChatCall) => ChatScript))[] = [];

  /** A stream to write, or a reply for the loopback server to send. */
  const answer = async (request: RecordedRequest): Promise<{ readonly stream: StreamScript; readonly call: ChatCall } | Reply> => {
    if (request.method !== 'POST' || request.url.pathname !== '/v1/chat/completions') {
      return json(404, { error: { message: `no route ${request.method} ${request.url.pathname}`, type: 'invalid_request_error' } });
    }
    const call: ChatCall = { headers: request.headers, search: request.url.search, body: JSON.parse(request.body) as ChatCall['body'] };
    calls.push(call);
    const key = bearerToken(request.headers);
    if (options.apiKey !== undefined && key !== options.apiKey) {
      return json(401, {
        error: { message: `Incorrect API key provided: ${key ?? '(none)'}.`, type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    if (options.models !== undefined && !options.models.includes(call.body.model)) {
      return json(404, { error: { message: `model "${call.body.model}" not found, try pulling it first`, type: 'api_error' } });
    }
    const next = queue.shift() ?? options.respond ?? defaultScript;
    const script = typeof next === 'function' ? next(call) : next;
    switch (script.kind) {
      case 'stream':
        return { stream: script, call };
      case 'json':
        return whole(call, script);
      case 'status':
        return { status: script.status, ...(script.headers ? { headers: script.headers } : {}), ...(script.body === undefined ? {} : { body: script.body }) };
    }
  };

  const server = await startLoopbackServer(async (request, response) => {
    const outcome = await answer(recordOf(request));
    if ('stream' in outcome) await stream(response, outcome.call, outcome.stream);
    else await replying(() => outcome)(request, response);
  });
  return {
    server,
    baseUrl: `${server.origin}/v1`,
    calls,
    script: (...scripts) => queue.push(...scripts),
    close: () => server.close(),
  };
}
