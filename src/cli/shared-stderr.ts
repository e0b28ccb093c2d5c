/**
 * stderr as the progress displays and the log share it. A progress bar or
 * counter is a live line, redrawn in place on a terminal; a log line written
 * meanwhile would land in the middle of it. Log lines therefore clear the live
 * line, take its place, and draw it again below themselves.
 */
import type { OutputStream } from './spec.js';
import { controlled, forwardingControls, writeControlled } from './terminal-text.js';

export interface SharedStderr extends OutputStream {
  /** Writes whole lines (ending in a newline) above the live line, if one is shown. */
  log(lines: string): void;
}

/**
 * `stream` shared; what the CLI writes with its own controls (a bar redrawn with `\r`:
 * terminal-text.ts) is passed on as such, everything else as text the stream makes safe.
 */
export function shareStderr(stream: OutputStream): SharedStderr {
  /** What shows of the last, unfinished line: the text after its last carriage return. */
  let live = '';
  const track = (text: string) => {
    const newline = text.lastIndexOf('\n');
    const tail = newline === -1 ? live + text : text.slice(newline + 1);
    live = tail.slice(tail.lastIndexOf('\r') + 1);
  };
  const write = (text: string) => {
    track(text);
    return stream.write(text);
  };
  const shared: SharedStderr = {
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    write,
    log(lines) {
      if (!(stream.isTTY && live !== '')) return void write(lines);
      writeControlled(stream, controlled`\r\x1b[K`);
      stream.write(`${lines}${live}`);
    },
  };
  return forwardingControls(shared, (text) => {
    track(String(text));
    return writeControlled(stream, text);
  });
}
