import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForSources } from '../../src/core/wait-for-sources.js';
import { openTestBackend } from '../mcp/support.js';
import type { TestBackend } from '../mcp/support.js';

describe('waitForSources', () => {
  let test: TestBackend;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob' });
  });

  afterEach(async () => {
    await test.close();
  });

  it('resolves once every source is processed, in the order of the ids, reporting progress', async () => {
    const created = await test.backend.assistant.createDataSources('frob', {
      text_sources: [
        { name: 'One', content: 'First text, about invoices.' },
        { name: 'Two', content: 'Second text, about refunds.' },
      ],
    });
    const ids = created.map((item) => item.id).reverse();
    const progress: [number, number][] = [];
    const outcomes = await waitForSources(test.backend.assistant, 'frob', ids, {
      onProgress: (settled, total) => progress.push([settled, total]),
    });
    expect(outcomes.map((outcome) => outcome.id)).toEqual(ids);
    expect(outcomes.map((outcome) => [outcome.source?.title, outcome.source?.status])).toEqual([
      ['Two', 'SUCCESS'],
      ['One', 'SUCCESS'],
    ]);
    expect(progress.at(-1)).toEqual([2, 2]);
    expect(progress.every(([settled], index) => index === 0 || settled >= progress[index - 1]![0])).toBe(true);
  });

  it('keeps one outcome per id asked for, also when an id repeats', async () => {
    const [source] = await test.backend.assistant.createDataSources('frob', { text_sources: [{ name: 'One', content: 'Text.' }] });
    const outcomes = await waitForSources(test.backend.assistant, 'frob', [source!.id, source!.id]);
    expect(outcomes.map((outcome) => outcome.source?.status)).toEqual(['SUCCESS', 'SUCCESS']);
  });

  it('counts a source that is no longer listed as settled', async () => {
    const outcomes = await waitForSources(test.backend.assistant, 'frob', [424242]);
    expect(outcomes).toEqual([{ id: 424242, source: undefined }]);
  });

  it('stops at the time limit, leaving the rest NOT_PROCESSED', async () => {
    const [source] = await test.backend.assistant.createDataSources('frob', { text_sources: [{ name: 'One', content: 'Text.' }] });
    const outcomes = await waitForSources(test.backend.assistant, 'frob', [source!.id], { timeLimitMs: 0 });
    expect(outcomes).toEqual([{ id: source!.id, source: expect.objectContaining({ status: 'NOT_PROCESSED' }) }]);
  });

  it('stops when the caller cancels', async () => {
    const [source] = await test.backend.assistant.createDataSources('frob', { text_sources: [{ name: 'One', content: 'Text.' }] });
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the client'));
    await expect(waitForSources(test.backend.assistant, 'frob', [source!.id], { signal: controller.signal })).rejects.toThrow(
      'cancelled by the client',
    );
  });
});
