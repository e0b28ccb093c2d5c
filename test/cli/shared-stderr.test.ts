import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';
import { shareStderr } from '../../src/cli/shared-stderr.js';

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, columns: 60, write: (text: string) => writes.push(text) };
}

describe('shareStderr', () => {
  it('puts a log line above the progress bar on a terminal, then draws the bar again', () => {
    const out = stream(true);
    const stderr = shareStderr(out);
    const progress = createProgress(stderr, 'Processing', 2);
    progress.update(1);
    stderr.log('2026-01-01T00:00:00.000Z warn slow host\n');
    progress.update(2);
    progress.finish();
    const screen = out.writes.join('');
    // The log line starts on a cleared line and the bar follows it, never sharing its line.
    expect(screen).toContain('\r\x1b[K2026-01-01T00:00:00.000Z warn slow host\nProcessing [');
    // What a terminal shows of each line: the text after its last carriage return, less clear-line codes.
    const lines = screen.split('\n').map((line) => stripVTControlCharacters(line.slice(line.lastIndexOf('\r') + 1)));
    expect(lines[0]).toBe('2026-01-01T00:00:00.000Z warn slow host');
    expect(lines[1]).toMatch(/^Processing \[#+\] 2\/2$/);
  });

  it('writes log lines as they are without a live line, and anywhere but a terminal', () => {
    const terminal = stream(true);
    shareStderr(terminal).log('a\n');
    expect(terminal.writes).toEqual(['a\n']);

    const pipe = stream(false);
    const stderr = shareStderr(pipe);
    const progress = createProgress(stderr, 'Processing', 1);
    stderr.log('b\n');
    progress.update(1);
    expect(pipe.writes.join('')).toBe('Processing: 0/1\nb\nProcessing: 1/1\n');
  });
});
