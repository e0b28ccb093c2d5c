import { describe, expect, it } from 'vitest';
import { createProgress, renderBar } from '../../src/cli/progress.js';

function stream(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  return { writes, isTTY, columns, write: (text: string) => writes.push(text) };
}

describe('renderBar', () => {
  it('fills in proportion to the count', () => {
    expect(renderBar('Processing', 0, 4, 8)).toBe('Processing [--------] 0/4');
    expect(renderBar('Processing', 1, 4, 8)).toBe('Processing [##------] 1/4');
    expect(renderBar('Processing', 4, 4, 8)).toBe('Processing [########] 4/4');
    expect(renderBar('Processing', 0, 0, 8)).toBe('Processing [########] 0/0');
  });
});

describe('createProgress', () => {
  it('writes a plain line per change when the stream is no terminal', () => {
    const out = stream(false);
    const progress = createProgress(out, 'Processing', 3);
    progress.update(0);
    progress.update(2);
    progress.update(2);
    progress.update(3);
    progress.finish();
    expect(out.writes.join('')).toBe('Processing: 0/3\nProcessing: 2/3\nProcessing: 3/3\n');
  });

  it('redraws one line in place on a terminal and ends it with a newline', () => {
    const out = stream(true, 60);
    const progress = createProgress(out, 'Processing', 2);
    progress.update(1);
    progress.update(2);
    progress.finish();
    progress.update(1);
    const text = out.writes.join('');
    expect(text.split('\r')).toHaveLength(4);
    expect(text).toContain('1/2');
    expect(text.endsWith('2/2\x1b[K\n')).toBe(true);
    expect(text.match(/\n/g)).toHaveLength(1);
  });

  it('keeps the bar within a narrow terminal', () => {
    const out = stream(true, 40);
    createProgress(out, 'Processing', 5);
    const line = out.writes[0]!.replace('\r', '').replace('\x1b[K', '');
    expect(line.length).toBeLessThanOrEqual(40);
  });
});
