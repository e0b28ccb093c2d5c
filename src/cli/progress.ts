/**
 * A count-of-total progress display. On a terminal it is one bar redrawn in
 * place; anywhere else (a pipe, a log file) it writes a plain line whenever the
 * count changes, so logs stay readable.
 */
import type { OutputStream } from './spec.js';
import { controlled, writeControlled } from './terminal-text.js';

export type ProgressStream = OutputStream;

export interface Progress {
  update(done: number): void;
  /** Ends the display; a terminal bar gets its final newline. */
  finish(): void;
}

const BAR_WIDTH = 30;

export function renderBar(label: string, done: number, total: number, width = BAR_WIDTH): string {
  const ratio = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(ratio * width);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`;
}

export function createProgress(stream: ProgressStream, label: string, total: number): Progress {
  let shown = -1;
  let finished = false;

  if (stream.isTTY) {
    const width = Math.max(10, Math.min(BAR_WIDTH, (stream.columns || 80) - label.length - 16));
    const draw = (done: number) => writeControlled(stream, controlled`\r${renderBar(label, done, total, width)}\x1b[K`);
    draw(0);
    shown = 0;
    return {
      update(done) {
        if (finished || done === shown) return;
        shown = done;
        draw(done);
      },
      finish() {
        if (finished) return;
        finished = true;
        stream.write('\n');
      },
    };
  }

  const line = (done: number) => stream.write(`${label}: ${done}/${total}\n`);
  line(0);
  shown = 0;
  return {
    update(done) {
      if (finished || done === shown) return;
      shown = done;
      line(done);
    },
    finish() {
      finished = true;
    },
  };
}
