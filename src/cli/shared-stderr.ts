/**
 * stderr as the progress displays and the log share it. A progress bar or
 * counter is a live line, redrawn in place on a terminal; a log line written
 * meanwhile would land in the middle of it. Log lines therefore clear the live
 * line, take its place, and draw it again below themselves.
 */
import type { OutputStream } from './spec.js';

export interface SharedStderr extends OutputStream {
  /** Writes whole lines (ending in a newline) above the live line, if one is shown. */
  log(lines: string): void;
}

export function shareStderr(stream: OutputStream): SharedStderr {
  /** What shows of the last, unfinished line: the text after its last carriage return. */
  let live = '';
  const write = (text: string) => {
    const newline = text.lastIndexOf('\n');
    const tail = newline === -1 ? live + text : text.slice(newline + 1);
    live = tail.slice(tail.lastIndexOf('\r') + 1);
    return stream.write(text);
  };
  return {
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    write,
    log(lines) {
      if (stream.isTTY && live !== '') stream.write(`\r\x1b[K${lines}${live}`);
      else write(lines);
    },
  };
}
