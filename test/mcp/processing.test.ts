import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForProcessing } from '../../src/mcp/processing.js';
import { openTestBackend } from './support.js';
import type { TestBackend } from './support.js';

describe('waitForProcessing', () => {
  let test: TestBackend;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob' });
  });

  afterEach(async () => {
    await test.close();
  });

  it('returns once every source has left NOT_PROCESSED, reporting each look', async () => {
    const created = await test.backend.assistant.createDataSources('frob', {
      text_sources: [
        { name: 'One', content: 'First text.' },
        { name: 'Two', content: 'Second text.' },
      ],
    });
    const polls: [number, number][] = [];
    const outcome = await waitForProcessing(
      test.backend.assistant,
      'frob',
      created.map((item) => item.id),
      { signal: new AbortController().signal, onPoll: (finished, total) => polls.push([finished, total]) },
    );
    expect(outcome.pending).toEqual([]);
    expect(outcome.finished.map((source) => [source.title, source.status])).toEqual([
      ['One', 'SUCCESS'],
      ['Two', 'SUCCESS'],
    ]);
    expect(polls.at(-1)).toEqual([2, 2]);
  });

  it('stops at the time limit with the ids still pending', async () => {
    const outcome = await waitForProcessing(test.backend.assistant, 'frob', [424242], {
      signal: new AbortController().signal,
      onPoll: () => {},
      timeLimitMs: 0,
    });
    expect(outcome).toEqual({ finished: [], pending: [424242] });
  });

  it('stops when the request is cancelled', async () => {
    const controller = new AbortController();
    let polls = 0;
    const waiting = waitForProcessing(test.backend.assistant, 'frob', [424242], {
      signal: controller.signal,
      onPoll: () => {
        if (++polls === 2) controller.abort(new Error('cancelled by the client'));
      },
    });
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(polls).toBe(2);
  });
});
