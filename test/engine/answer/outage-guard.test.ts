/** The model left alone for a while after an outage, over a real provider and the stand-in. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OUTAGE_PAUSE_MS, OutageGuard } from '../../../src/engine/answer/model/outage-guard.js';
import { ChatError, ChatProvider } from '../../../src/providers/chat.js';
import { startChatCompletionsStandIn, type ChatCompletionsStandIn } from '../../stand-ins/chat-completions.js';

const ask = { messages: [{ role: 'user', content: 'hello' }] } as const;

describe('OutageGuard', () => {
  let model: ChatCompletionsStandIn;
  let provider: ChatProvider;
  let now: number;
  let guard: OutageGuard;

  beforeEach(async () => {
    model = await startChatCompletionsStandIn();
    provider = new ChatProvider({ baseUrl: model.baseUrl, model: 'stand-in', maxAttempts: 1, responseTimeoutMs: 200 });
    now = 0;
    guard = new OutageGuard(provider, () => now);
  });

  afterEach(async () => {
    await provider.close();
    await model.close();
  });

  it('after a timeout, fails at once without a request until the pause is over, then asks again', async () => {
    model.script({ kind: 'stream', steps: [], ending: 'stall' });
    const chunks: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of guard.stream(ask)) chunks.push(chunk);
      })(),
    ).rejects.toMatchObject({ failure: 'timeout' });
    expect(model.calls).toHaveLength(1);

    const refusedAt = async (): Promise<string> => {
      const refused = await guard.complete(ask).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ChatError);
      return (refused as ChatError).message;
    };
    expect(await refusedAt()).toMatch(/did not start answering .*tried again in 30 s/);
    now += 20_500;
    expect(await refusedAt()).toMatch(/tried again in 10 s\)$/);
    now += OUTAGE_PAUSE_MS - 20_500 - 1;
    expect(await refusedAt()).toMatch(/tried again in 1 s\)$/);
    expect(model.calls).toHaveLength(1);

    now += 1;
    await expect(guard.complete(ask)).resolves.toMatchObject({ text: 'Answer to: hello' });
    expect(model.calls).toHaveLength(2);
  });

  it('does not pause after a failure that is no outage (an error status)', async () => {
    model.script({ kind: 'status', status: 400, body: { error: { message: 'bad request' } } });
    await expect(guard.complete(ask)).rejects.toMatchObject({ failure: 'refused' });
    await expect(guard.complete(ask)).resolves.toMatchObject({ text: 'Answer to: hello' });
    expect(model.calls).toHaveLength(2);
  });
});
