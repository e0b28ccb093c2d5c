import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatError, ChatProvider, type ChatSettings, type ChatStream } from '../../src/providers/chat.js';
import { startChatCompletionsStandIn, streamOf, type ChatCompletionsStandIn } from '../stand-ins/chat-completions.js';

const KEY = 'sk-test-very-secret-key';
const QUESTION = [{ role: 'user', content: 'How do I reset my password?' }] as const;

interface Read {
  readonly pieces: string[];
  readonly error: unknown;
}

/** Reads a stream to its end, keeping the pieces that arrived before any failure. */
async function read(stream: ChatStream): Promise<Read> {
  const pieces: string[] = [];
  try {
    for await (const piece of stream) pieces.push(piece);
    return { pieces, error: undefined };
  } catch (error) {
    return { pieces, error };
  }
}

function chatError(value: unknown): ChatError {
  expect(value).toBeInstanceOf(ChatError);
  return value as ChatError;
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('ChatProvider', () => {
  let standIn: ChatCompletionsStandIn;
  const providers: ChatProvider[] = [];

  /** A provider of the stand-in; retries are quick unless a test says otherwise. */
  const provider = (settings: Partial<ChatSettings> = {}): ChatProvider => {
    const created = new ChatProvider({ baseUrl: standIn.baseUrl, model: 'llama3', apiKey: KEY, retryBackoffMs: 10, ...settings });
    providers.push(created);
    return created;
  };

  beforeEach(async () => {
    standIn = await startChatCompletionsStandIn();
  });

  afterEach(async () => {
    await Promise.all(providers.splice(0).map((created) => created.close()));
    await standIn.close();
  });

  describe('streaming', () => {
    it('hands out the deltas in order, joining exactly to the answer, with finish reason and usage', async () => {
      standIn.script({
        kind: 'stream',
        steps: [{ text: 'Open ' }, { text: '**Settings**' }, { text: ' → ' }, { text: 'Reset [1].\n' }],
        usage: { prompt_tokens: 57, completion_tokens: 4 },
      });
      const stream = provider().stream({ messages: QUESTION, temperature: 0.2, maxTokens: 300 });
      const { pieces, error } = await read(stream);
      expect(error).toBeUndefined();
      expect(pieces).toEqual(['Open ', '**Settings**', ' → ', 'Reset [1].\n']);
      expect(await stream.completion).toEqual({
        text: 'Open **Settings** → Reset [1].\n',
        finishReason: 'stop',
        usage: { promptTokens: 57, completionTokens: 4 },
      });
    });

    it('sends the model, the messages and the key, asking for usage in the stream', async () => {
      await read(provider().stream({ messages: QUESTION, temperature: 0.2, maxTokens: 300 }));
      const [call] = standIn.calls;
      expect(standIn.server.requests[0]?.path).toBe('/v1/chat/completions');
      expect(call?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(call?.headers.accept).toBe('text/event-stream');
      expect(call?.body).toEqual({
        model: 'llama3',
        messages: QUESTION,
        temperature: 0.2,
        max_tokens: 300,
        stream: true,
        stream_options: { include_usage: true },
      });
    });

    it('sends no Authorization header without a key', async () => {
      await read(provider({ apiKey: undefined }).stream({ messages: QUESTION }));
      expect(standIn.calls[0]?.headers.authorization).toBeUndefined();
    });

    it("keeps a query the API root carries (Azure OpenAI's api-version) on the request", async () => {
      await read(provider({ baseUrl: `${standIn.baseUrl}/?api-version=2024-10-21` }).stream({ messages: QUESTION }));
      expect(standIn.calls[0]?.search).toBe('?api-version=2024-10-21');
    });

    it('reports no usage when the server sends none, and the finish reason it names', async () => {
      standIn.script({
        kind: 'stream',
        steps: [{ raw: 'data: {"choices":[{"index":0,"delta":{"content":"cut"},"finish_reason":"length"}]}\n\n' }],
        ending: 'eof',
      });
      const stream = provider().stream({ messages: QUESTION });
      expect((await read(stream)).pieces).toEqual(['cut']);
      expect(await stream.completion).toEqual({ text: 'cut', finishReason: 'length', usage: undefined });
    });

    it('reads events split across TCP writes, CRLF line ends, keep-alive comments and multi-line data', async () => {
      const chunk = (content: string) => JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
      const first = `data: ${chunk('Hello')}\r\n\r\n`;
      standIn.script({
        kind: 'stream',
        newline: '\r\n',
        steps: [
          { raw: ': keep-alive\r\n\r\n' },
          { raw: first.slice(0, 9) },
          { raw: first.slice(9, 30), delayMs: 30 },
          { raw: `${first.slice(30, -1)}`, delayMs: 30 },
          { raw: first.slice(-1), delayMs: 30 },
          { raw: 'data: {"choices":[{"index":0,\r\ndata: "delta":{"content":", world"}}]}\r\n\r\n', delayMs: 30 },
          { text: '!' },
        ],
      });
      const stream = provider().stream({ messages: QUESTION });
      expect((await read(stream)).pieces).toEqual(['Hello', ', world', '!']);
      expect((await stream.completion).text).toBe('Hello, world!');
    });

    it('takes a whole JSON answer from a server that ignores stream: true as one piece', async () => {
      standIn.script({ kind: 'json', text: 'All at once.', usage: { prompt_tokens: 12, completion_tokens: 3 } });
      const stream = provider().stream({ messages: QUESTION });
      expect(await read(stream)).toEqual({ pieces: ['All at once.'], error: undefined });
      expect(await stream.completion).toEqual({ text: 'All at once.', finishReason: 'stop', usage: { promptTokens: 12, completionTokens: 3 } });
      expect(standIn.calls).toHaveLength(1);
    });

    it('sends nothing until the stream is read', async () => {
      const stream = provider().stream({ messages: QUESTION });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(standIn.calls).toHaveLength(0);
      await read(stream);
      expect(standIn.calls).toHaveLength(1);
    });
  });

  describe('retries', () => {
    it('retries 503 and 429 before the first token, waiting as long as Retry-After says, then streams once', async () => {
      standIn.script(
        { kind: 'status', status: 503, headers: { 'retry-after': '0' }, body: { error: { message: 'model is loading' } } },
        { kind: 'status', status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down' } } },
        streamOf('Fine now.'),
      );
      // The backoff, used when a server names no wait, is longer than the test may run.
      const stream = provider({ retryBackoffMs: 120_000, maxRetryDelayMs: 120_000 }).stream({ messages: QUESTION });
      expect(await read(stream)).toEqual({ pieces: ['Fine ', 'now.'], error: undefined });
      expect(standIn.calls).toHaveLength(3);
      expect(new Set(standIn.calls.map((call) => JSON.stringify(call.body))).size).toBe(1);
    });

    it('honours a Retry-After given as an HTTP date', async () => {
      standIn.script({ kind: 'status', status: 429, headers: { 'retry-after': new Date(Date.now() + 1000).toUTCString() } }, streamOf('Later.'));
      const { pieces } = await read(provider({ retryBackoffMs: 120_000, maxRetryDelayMs: 120_000 }).stream({ messages: QUESTION }));
      expect(pieces).toEqual(['Later.']);
      expect(standIn.calls).toHaveLength(2);
    });

    it('does not wait for a Retry-After beyond the cap: it fails at once, saying how long the server asked for', async () => {
      standIn.script({ kind: 'status', status: 429, headers: { 'retry-after': '60' }, body: { error: { message: 'Rate limit reached' } } });
      const { error } = await read(provider({ maxRetryDelayMs: 5_000 }).stream({ messages: QUESTION }));
      expect(chatError(error).message).toBe(
        `The language model at ${standIn.baseUrl} answered 429 (Rate limit reached): it asks to wait 60 s; check the rate limits of the account, or try again later`,
      );
      expect(standIn.calls).toHaveLength(1);
    });

    it('retries a connection cut, or an error sent in the stream, before the first token', async () => {
      standIn.script(
        { kind: 'stream', steps: [], ending: 'destroy' },
        { kind: 'stream', steps: [{ raw: 'data: {"error":{"message":"out of memory","code":500}}\n\n' }] },
        streamOf('Third time lucky.'),
      );
      const stream = provider().stream({ messages: QUESTION });
      expect(await read(stream)).toEqual({ pieces: ['Third ', 'time ', 'lucky.'], error: undefined });
      expect((await stream.completion).text).toBe('Third time lucky.');
      expect(standIn.calls).toHaveLength(3);
    });

    it('never retries once text was handed out: a cut connection fails the stream after the text it sent', async () => {
      // The cut waits until the text was read: bytes still buffered when a socket dies are lost, and then no text came.
      let textRead = () => {};
      const cut = new Promise<void>((resolve) => (textRead = resolve));
      standIn.script({ kind: 'stream', steps: [{ text: 'Half ' }, { text: 'an ' }, { raw: '', after: cut }], ending: 'destroy' }, streamOf('Never sent.'));
      const stream = provider().stream({ messages: QUESTION });
      const pieces: string[] = [];
      const error = await (async () => {
        for await (const piece of stream) {
          pieces.push(piece);
          if (pieces.length === 2) textRead();
        }
      })().catch((failure: unknown) => failure);
      expect(pieces).toEqual(['Half ', 'an ']);
      expect(chatError(error).failure).toBe('broken');
      expect(chatError(error).message).toMatch(new RegExp(`^The connection to the language model at ${standIn.baseUrl} broke off mid-answer \\(.+\\): check the server's log$`));
      await expect(stream.completion).rejects.toBe(error);
      expect(standIn.calls).toHaveLength(1);
    });

    it('never retries an error sent in the stream after text', async () => {
      standIn.script({ kind: 'stream', steps: [{ text: 'Partial' }, { raw: 'data: {"error":{"message":"backend crashed","code":503}}\n\n' }] });
      const { pieces, error } = await read(provider().stream({ messages: QUESTION }));
      expect(pieces).toEqual(['Partial']);
      expect(chatError(error).message).toBe(`The language model at ${standIn.baseUrl} reported an error (backend crashed): check the server's log`);
      expect(standIn.calls).toHaveLength(1);
    });

    it('fails a stream that ends without [DONE] or a finish reason', async () => {
      standIn.script({ kind: 'stream', steps: [{ text: 'Cut' }], ending: 'eof' });
      const { pieces, error } = await read(provider().stream({ messages: QUESTION }));
      expect(pieces).toEqual(['Cut']);
      expect(chatError(error).message).toBe(
        `The language model at ${standIn.baseUrl} ended its answer stream before the answer was complete: check the server's log`,
      );
    });

    it('gives up after the last attempt with the last failure', async () => {
      standIn.script(
        { kind: 'status', status: 502, body: 'Bad Gateway' },
        { kind: 'status', status: 500, body: { error: { message: 'internal' } } },
        streamOf('Not reached.'),
      );
      const { error } = await read(provider({ maxAttempts: 2 }).stream({ messages: QUESTION }));
      expect(chatError(error).message).toBe(`The language model at ${standIn.baseUrl} answered 500 (internal): the server failed; check its log, or try again later`);
      expect(standIn.calls).toHaveLength(2);
    });

    it('does not retry a 400', async () => {
      standIn.script({ kind: 'status', status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens" } } });
      const { error } = await read(provider().stream({ messages: QUESTION }));
      expect(chatError(error).message).toBe(
        `The language model at ${standIn.baseUrl} answered 400 (This model's maximum context length is 8192 tokens): check that GURU_LLM_MODEL ("llama3") is a chat model and that the prompt fits its context`,
      );
      expect(standIn.calls).toHaveLength(1);
    });

    it('sends content parts as given, and says to turn GURU_LLM_IMAGES off when a 400 refuses a request with an image', async () => {
      const image = 'data:image/png;base64,iVBORw0KGgo=';
      const content = [
        { type: 'text', text: 'What does this error mean?' },
        { type: 'image_url', image_url: { url: image } },
      ] as const;
      standIn.script({ kind: 'status', status: 400, body: { error: { message: 'Invalid content type. image_url is only supported by certain models.' } } });
      const { error } = await read(provider().stream({ messages: [{ role: 'user', content }] }));
      expect(standIn.calls[0]?.body.messages).toEqual([{ role: 'user', content }]);
      expect(chatError(error).message).toBe(
        `The language model at ${standIn.baseUrl} answered 400 (Invalid content type. image_url is only supported by certain models.): GURU_LLM_MODEL ("llama3") seems not to take images; turn GURU_LLM_IMAGES off, or use a model that reads images`,
      );
      // The same refusal of a text-only request keeps the general advice.
      standIn.script({ kind: 'status', status: 400, body: { error: { message: 'Invalid content type.' } } });
      const { error: textOnly } = await read(provider().stream({ messages: QUESTION }));
      expect(chatError(textOnly).message).toMatch(/check that GURU_LLM_MODEL \("llama3"\) is a chat model/);
    });

    it('fails on a malformed chunk without retrying, quoting it', async () => {
      standIn.script({ kind: 'stream', steps: [{ raw: 'data: {"choices": [oops\n\n' }] });
      const { error } = await read(provider().stream({ messages: QUESTION }));
      expect(chatError(error).failure).toBe('malformed');
      expect(chatError(error).message).toBe(
        `The language model at ${standIn.baseUrl} sent a stream chunk that is not JSON ({"choices": [oops): is GURU_LLM_URL an OpenAI-compatible API?`,
      );
      expect(standIn.calls).toHaveLength(1);
    });
  });

  describe('timeouts and abort', () => {
    it('fails a stream that stalls mid-answer, keeping the text that came', async () => {
      standIn.script({ kind: 'stream', steps: [{ text: 'Step one. ' }], ending: 'stall' });
      const { pieces, error } = await read(provider({ stallTimeoutMs: 200 }).stream({ messages: QUESTION }));
      expect(pieces).toEqual(['Step one. ']);
      expect(chatError(error).failure).toBe('stalled');
      expect(chatError(error).message).toBe(
        `The language model at ${standIn.baseUrl} stopped sending its answer for 0.2 s: the server may be overloaded; check its log`,
      );
      expect(standIn.calls).toHaveLength(1);
    });

    it('waits for a slow first token as long as the response timeout, not the stall timeout', async () => {
      standIn.script({ kind: 'stream', steps: [{ text: 'Loaded.', delayMs: 400 }] });
      const { pieces, error } = await read(provider({ stallTimeoutMs: 50, responseTimeoutMs: 20_000 }).stream({ messages: QUESTION }));
      expect(error).toBeUndefined();
      expect(pieces).toEqual(['Loaded.']);
    });

    it('fails when the first token does not come within the response timeout, keep-alive comments or not', async () => {
      const pings = Array.from({ length: 40 }, () => ({ raw: ': ping\n\n', delayMs: 25 }));
      standIn.script({ kind: 'stream', steps: [...pings, { text: 'Too late.' }] });
      const { pieces, error } = await read(provider({ responseTimeoutMs: 300, stallTimeoutMs: 20_000 }).stream({ messages: QUESTION }));
      expect(pieces).toEqual([]);
      expect(chatError(error).failure).toBe('timeout');
      expect(chatError(error).message).toBe(
        `The language model at ${standIn.baseUrl} did not start answering within 0.3 s: check that the server runs and can serve GURU_LLM_MODEL ("llama3")`,
      );
      expect(standIn.calls).toHaveLength(1);
    });

    it('ends the stream with the abort reason when the caller aborts mid-answer', async () => {
      standIn.script({ kind: 'stream', steps: [{ text: 'First. ' }, { text: 'Never. ', delayMs: 20_000 }] });
      const controller = new AbortController();
      const stream = provider().stream({ messages: QUESTION, signal: controller.signal });
      const pieces: string[] = [];
      const reason = new Error('the user went away');
      await expect(
        (async () => {
          for await (const piece of stream) {
            pieces.push(piece);
            controller.abort(reason);
          }
        })(),
      ).rejects.toBe(reason);
      expect(pieces).toEqual(['First. ']);
      await expect(stream.completion).rejects.toBe(reason);
    });

    it('ends a retry pause at once when the caller aborts', async () => {
      standIn.script({ kind: 'status', status: 503 });
      const controller = new AbortController();
      const stream = provider({ retryBackoffMs: 120_000, maxRetryDelayMs: 120_000 }).stream({ messages: QUESTION, signal: controller.signal });
      const reading = read(stream);
      while (standIn.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const reason = new Error('cancelled');
      controller.abort(reason);
      expect((await reading).error).toBe(reason);
      expect(standIn.calls).toHaveLength(1);
    });

    it('closes the request when the reader stops early, and says so in the completion', async () => {
      standIn.script({ kind: 'stream', steps: [{ text: 'One. ' }, { text: 'Two. ', delayMs: 20_000 }] });
      const stream = provider().stream({ messages: QUESTION });
      for await (const piece of stream) {
        expect(piece).toBe('One. ');
        break;
      }
      const error = await stream.completion.catch((failure: unknown) => failure);
      expect(chatError(error).failure).toBe('stopped');
      expect(await read(provider().stream({ messages: QUESTION }))).toEqual({ pieces: ['Answer ', 'to: ', 'How ', 'do ', 'I ', 'reset ', 'my ', 'password?'], error: undefined });
    });
  });

  describe('errors name the endpoint and what to check, never the key', () => {
    it('401: check GURU_LLM_API_KEY, with the key the server echoed masked', async () => {
      await standIn.close();
      standIn = await startChatCompletionsStandIn({ apiKey: 'sk-the-right-one' });
      for (const failure of [
        (await read(provider().stream({ messages: QUESTION }))).error,
        await provider()
          .complete({ messages: QUESTION })
          .catch((error: unknown) => error),
      ]) {
        const error = chatError(failure);
        expect(error.message).toBe(`The language model at ${standIn.baseUrl} answered 401 (Incorrect API key provided: ***.): check GURU_LLM_API_KEY`);
        expect(error.message).not.toContain(KEY);
        expect(error.status).toBe(401);
      }
      expect(standIn.calls).toHaveLength(2);
    });

    it('404: names the model and says to check GURU_LLM_MODEL', async () => {
      await standIn.close();
      standIn = await startChatCompletionsStandIn({ models: ['qwen2.5'] });
      const error = chatError((await read(provider().stream({ messages: QUESTION }))).error);
      expect(error.message).toBe(
        `The language model at ${standIn.baseUrl} answered 404 (model "llama3" not found, try pulling it first): check GURU_LLM_MODEL ("llama3") and that GURU_LLM_URL is the API root, ending in /v1`,
      );
    });

    it('shows the endpoint without the credentials of its URL', async () => {
      const withCredentials = new URL(standIn.baseUrl);
      withCredentials.username = 'proxy-user';
      withCredentials.password = 'proxy-pass';
      standIn.script({ kind: 'status', status: 403, body: 'forbidden' });
      const error = chatError((await read(provider({ baseUrl: `${withCredentials.href}/` }).stream({ messages: QUESTION }))).error);
      expect(error.message).toBe(`The language model at ${standIn.baseUrl} answered 403 (forbidden): check GURU_LLM_API_KEY`);
    });

    it('unreachable: check GURU_LLM_URL and that the server runs, after the retries', async () => {
      const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
      const unreachable = provider({ baseUrl, maxAttempts: 2 });
      for (const failure of [
        (await read(unreachable.stream({ messages: QUESTION }))).error,
        await unreachable.complete({ messages: QUESTION }).catch((error: unknown) => error),
      ]) {
        const error = chatError(failure);
        expect(error.failure).toBe('unreachable');
        expect(error.message).toBe(`The language model at ${baseUrl} could not be reached (ECONNREFUSED): check GURU_LLM_URL and that the server runs`);
      }
    });
  });

  describe('complete', () => {
    it('answers in one JSON body with usage, asking for a JSON object when told to', async () => {
      standIn.script({ kind: 'json', text: '{"scores":[0.9,0.2]}', usage: { prompt_tokens: 120, completion_tokens: 9 } });
      const completion = await provider().complete({ messages: QUESTION, responseFormat: 'json', temperature: 0 });
      expect(completion).toEqual({ text: '{"scores":[0.9,0.2]}', finishReason: 'stop', usage: { promptTokens: 120, completionTokens: 9 } });
      expect(standIn.calls[0]?.body).toEqual({
        model: 'llama3',
        messages: QUESTION,
        temperature: 0,
        stream: false,
        response_format: { type: 'json_object' },
      });
      expect(standIn.calls[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('retries 5xx and a cut connection, then answers', async () => {
      standIn.script({ kind: 'status', status: 500 }, { kind: 'stream', steps: [], ending: 'destroy' }, { kind: 'json', text: 'Standalone question?' });
      expect((await provider().complete({ messages: QUESTION })).text).toBe('Standalone question?');
      expect(standIn.calls).toHaveLength(3);
    });

    it('takes a null content as no text', async () => {
      standIn.script({ kind: 'json', text: null });
      expect((await provider().complete({ messages: QUESTION })).text).toBe('');
    });

    it('fails when the answer has no choices, quoting what came', async () => {
      standIn.script({ kind: 'status', status: 200, body: { object: 'list', data: [] } });
      const error = chatError(await provider().complete({ messages: QUESTION }).catch((failure: unknown) => failure));
      expect(error.message).toBe(
        `The language model at ${standIn.baseUrl} answered without choices[0].message ({"object":"list","data":[]}): is GURU_LLM_URL an OpenAI-compatible API?`,
      );
    });

    it('fails when the answer does not start within the response timeout', async () => {
      standIn.script({ kind: 'json', text: 'late', delayMs: 2_000 });
      const error = chatError(await provider({ responseTimeoutMs: 200 }).complete({ messages: QUESTION }).catch((failure: unknown) => failure));
      expect(error.failure).toBe('timeout');
      expect(standIn.calls).toHaveLength(1);
    });
  });
});
