import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForSources } from '../../src/cli/wait-for-sources.js';
import { openBackend } from '../../src/compose.js';
import type { OpenedBackend } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';

let dataDir: string;
let backend: OpenedBackend;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-wait-'));
  backend = await openBackend(loadConfig({ env: {}, flags: { dataDir } }), silentLogger);
  await backend.admin!.createGuru({ slug: 'docs' });
});

afterEach(async () => {
  await backend.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('waitForSources', () => {
  it('resolves once every new source is processed, in the order of the ids, reporting progress', async () => {
    const created = await backend.assistant.createDataSources('docs', {
      text_sources: [
        { name: 'first', content: 'The first source talks about invoices.' },
        { name: 'second', content: 'The second source talks about refunds.' },
      ],
    });
    const ids = created.map((item) => item.id).reverse();
    const progress: [number, number][] = [];
    const outcomes = await waitForSources(backend.assistant, 'docs', ids, {
      onProgress: (done, total) => progress.push([done, total]),
      firstIntervalMs: 10,
    });
    expect(outcomes.map((outcome) => outcome.id)).toEqual(ids);
    expect(outcomes.map((outcome) => outcome.source?.status)).toEqual(['SUCCESS', 'SUCCESS']);
    expect(outcomes.map((outcome) => outcome.source?.title)).toEqual(['second', 'first']);
    expect(progress.at(-1)).toEqual([2, 2]);
    expect(progress.every(([done], index) => index === 0 || done >= progress[index - 1]![0])).toBe(true);
  });

  it('counts a source that is not listed as settled, without a source', async () => {
    const outcomes = await waitForSources(backend.assistant, 'docs', [424242]);
    expect(outcomes).toEqual([{ id: 424242, source: undefined }]);
  });
});
