/**
 * Text that reaches the operator's terminal carries no control sequences it did not come with
 * from this program. Source names, page titles, questions and answers of end users, a remote
 * service's messages: any of them may hold escape sequences that retitle or clear the terminal,
 * write to its clipboard (OSC 52) or hide text, and a pipe passes them on to whatever shows them
 * later. So the process's stdout and stderr, as commands get them, are `safeOutput` streams: every
 * string written is made safe (`terminalSafe`), whichever command wrote it and whatever it holds.
 *
 * The CLI's own controls (styles of rendered Markdown, a progress bar redrawn in place) go out
 * through `writeControlled`, built with the `controlled` tag, whose values are made safe too: only
 * the program's literal text keeps its controls. JSON output is escaped (output.ts), not stripped.
 */
import type { OutputStream } from './spec.js';

/**
 * What terminalSafe removes, longest first:
 * - strings: OSC, DCS, SOS, PM, APC (7-bit `ESC ] P X ^ _` or their C1 forms), up to BEL, ST or
 *   the end of the text;
 * - CSI sequences (`ESC [` or U+009B, parameters, intermediates, final byte);
 * - any other escape (`ESC` with intermediates and a final byte: `ESC c`, `ESC ( B`);
 * - every other C0 control but tab and newline (carriage return, BEL, backspace...), DEL, C1
 *   controls, and the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
 *   U+2066-U+2069), which make text read other than it is stored.
 */
const UNSAFE = new RegExp(
  [
    String.raw`(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?`,
    String.raw`(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?`,
    String.raw`\x1b[\x20-\x2f]*[\x30-\x7e]?`,
    String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]`,
  ].join('|'),
  'g',
);

/** `text` without control sequences or controls, keeping tabs and newlines (a CRLF becomes a newline). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, '');
}

let make: (text: string) => Controlled;

/** Text holding the CLI's own terminal controls around values made safe; only this module makes one. */
export class Controlled {
  readonly #text: string;
  private constructor(text: string) {
    this.#text = text;
  }
  static {
    make = (text) => new Controlled(text);
  }
  toString(): string {
    return this.#text;
  }
}

/** controlled`\r${label}\x1b[K`: the template's literal text as written, every value made safe. */
export function controlled(literals: TemplateStringsArray, ...values: readonly (string | number)[]): Controlled {
  let text = literals[0] ?? '';
  values.forEach((value, index) => (text += terminalSafe(String(value)) + (literals[index + 1] ?? '')));
  return make(text);
}

/**
 * The output of a renderer that styles text it made safe itself (markdown.ts): its controls are
 * the renderer's. Nothing else may call this.
 */
export function rendered(styledFromSafeText: string): Controlled {
  return make(styledFromSafeText);
}

const RAW = Symbol('write with controls');

interface RawWritable {
  readonly [RAW]: (text: string) => unknown;
}

const hasRaw = (stream: OutputStream): stream is OutputStream & RawWritable => typeof (stream as Partial<RawWritable>)[RAW] === 'function';

/**
 * Writes text with the CLI's own controls: unchanged by a safeOutput stream (or any stream that
 * forwards them, as shared-stderr.ts does); any other stream (a test's sink) takes it as text.
 */
export function writeControlled(stream: OutputStream, text: Controlled): unknown {
  return hasRaw(stream) ? stream[RAW](String(text)) : stream.write(String(text));
}

/** `wrapper` (of a stream) taking what `writeControlled` gives it with `forward`, which passes it on with writeControlled. */
export function forwardingControls<T extends OutputStream>(wrapper: T, forward: (text: Controlled) => unknown): T & RawWritable {
  return Object.assign(wrapper, { [RAW]: (text: string) => forward(make(text)) });
}

/**
 * `stream` (the process's stdout or stderr) with every string written made safe; bytes (speak's
 * MP3, never to a terminal) pass as they are. Everything else (isTTY, columns, once('drain')) is
 * the stream's own.
 */
export function safeOutput<T extends OutputStream>(stream: T): T & RawWritable {
  const write = (chunk: string | Uint8Array, ...rest: unknown[]) =>
    (stream.write as (chunk: string | Uint8Array, ...rest: unknown[]) => unknown)(typeof chunk === 'string' ? terminalSafe(chunk) : chunk, ...rest);
  const raw = (text: string) => stream.write(text);
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      if (property === RAW) return raw;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as T & RawWritable;
}
