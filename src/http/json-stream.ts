/**
 * JSON parsed as its bytes arrive, to the value JSON.parse gives for the same UTF-8 text. A body
 * is then never held whole beside its parsed value: each piece is read and let go, and only the
 * values stay (an ask's attachments: base64 strings of 80 MB in all, read once). Strings are
 * found with Buffer.indexOf and decoded once, when they end, so that long ones cost no per-byte
 * JS. A long string of ASCII without escapes (base64) is made by Buffer#toString('latin1'), which
 * Node keeps outside the JS heap (an external string, from about 1 MB): V8 then counts it as
 * external memory and collects it soon after the request is done, where megabytes of heap
 * strings would wait for the heap to triple before a full collection.
 */
import { isAscii } from 'node:buffer';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES: Readonly<Record<number, string>> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const NUMBER_BYTE = /[-+.\deE]/;
// eslint-disable-next-line no-control-regex -- JSON takes no raw control characters in strings
const CONTROL = /[\u0000-\u001f]/;
const LITERALS: Readonly<Record<string, true | false | null>> = { true: true, false: false, null: null };

/** A string being read: its bytes since the last escape, and the text before them. */
interface OpenString {
  readonly pieces: Buffer[];
  bytes: number;
  readonly parts: string[];
}

type Frame = { readonly array: unknown[] } | { readonly object: Record<string, unknown>; key: string | undefined };

/** What comes next: a value, an object's key, the colon after it, a comma or the end of a container, nothing more. */
type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end';

export class JsonSyntaxError extends SyntaxError {
  override readonly name = 'JsonSyntaxError';
}

export class JsonStreamParser {
  #expect: Expect = 'value';
  readonly #stack: Frame[] = [];
  #root: unknown = undefined;
  /** Inside a string: what has been read of it. */
  #string: OpenString | undefined;
  /** After a backslash: '' for the escape letter, else the hex digits of \u read so far. */
  #escape: string | undefined;
  /** Inside a number or a literal (true, false, null): its characters so far. */
  #word: string | undefined;
  #empty = true;
  /** The chunk last searched for quotes and backslashes, and where the next of each is in it (-1: none after, -2: not searched). */
  #scanned: Buffer | undefined;
  #quoteAt = -2;
  #slashAt = -2;

  /** Parses the next piece of the text; throws JsonSyntaxError as soon as it cannot be JSON. */
  write(chunk: Buffer): void {
    let at = 0;
    const length = chunk.length;
    if (length > 0) this.#empty = false;
    while (at < length) {
      if (this.#string !== undefined) {
        at = this.#inString(chunk, at);
        continue;
      }
      const byte = chunk[at] as number;
      if (this.#word !== undefined) {
        if (this.#isWordByte(byte)) {
          this.#word += String.fromCharCode(byte);
          at += 1;
          continue;
        }
        this.#endWord();
      }
      at += 1;
      if (WHITESPACE.has(byte)) continue;
      this.#structural(byte);
    }
  }

  /** The value, once the text has ended; throws JsonSyntaxError when it is not whole. An empty text (no bytes) is undefined. */
  end(): unknown {
    if (this.#empty) return undefined;
    if (this.#word !== undefined) this.#endWord();
    if (this.#expect !== 'end' || this.#string !== undefined) throw new JsonSyntaxError('Unexpected end of JSON input');
    return this.#root;
  }

  #isWordByte(byte: number): boolean {
    const word = this.#word as string;
    const first = word.charCodeAt(0);
    // A literal's letters, or a number's characters.
    if (first === 0x74 || first === 0x66 || first === 0x6e) return byte >= 0x61 && byte <= 0x7a;
    return NUMBER_BYTE.test(String.fromCharCode(byte));
  }

  #endWord(): void {
    const word = this.#word as string;
    this.#word = undefined;
    if (word in LITERALS) {
      this.#value(LITERALS[word]);
      return;
    }
    if (!NUMBER.test(word)) throw new JsonSyntaxError(`Unexpected token in JSON: ${word.slice(0, 20)}`);
    this.#value(Number(word));
  }

  #structural(byte: number): void {
    const expect = this.#expect;
    const wantsValue = expect === 'value' || expect === 'value-or-close';
    if (byte === QUOTE && (wantsValue || expect === 'key' || expect === 'key-or-close')) {
      this.#string = { pieces: [], bytes: 0, parts: [] };
      return;
    }
    if (wantsValue) {
      if (byte === 0x7b) return this.#open({ object: {}, key: undefined }, 'key-or-close');
      if (byte === 0x5b) return this.#open({ array: [] }, 'value-or-close');
      if (byte === 0x5d && expect === 'value-or-close') return this.#close();
      if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39) || byte === 0x74 || byte === 0x66 || byte === 0x6e) {
        this.#word = String.fromCharCode(byte);
        return;
      }
    } else if (expect === 'key-or-close' && byte === 0x7d) {
      return this.#close();
    } else if (expect === 'colon' && byte === 0x3a) {
      this.#expect = 'value';
      return;
    } else if (expect === 'comma-or-close') {
      const top = this.#stack.at(-1) as Frame;
      if (byte === 0x2c) {
        this.#expect = 'array' in top ? 'value' : 'key';
        return;
      }
      if (byte === ('array' in top ? 0x5d : 0x7d)) return this.#close();
    }
    throw new JsonSyntaxError(`Unexpected character in JSON: ${JSON.stringify(String.fromCharCode(byte))}`);
  }

  #open(frame: Frame, expect: Expect): void {
    this.#stack.push(frame);
    this.#expect = expect;
  }

  #close(): void {
    const frame = this.#stack.pop() as Frame;
    this.#value('array' in frame ? frame.array : frame.object);
  }

  /** A value is complete: it goes where the parser is, and the parser moves on. */
  #value(value: unknown): void {
    const top = this.#stack.at(-1);
    if (top === undefined) {
      this.#root = value;
      this.#expect = 'end';
      return;
    }
    if ('array' in top) {
      top.array.push(value);
    } else if (top.key === '__proto__') {
      // As JSON.parse: an own property, never the object's prototype.
      Object.defineProperty(top.object, '__proto__', { value, writable: true, enumerable: true, configurable: true });
    } else {
      top.object[top.key as string] = value;
    }
    this.#expect = 'comma-or-close';
  }

  /** Reads string content from `at`; returns where it stopped (the end of the chunk, or after the closing quote). */
  #inString(chunk: Buffer, at: number): number {
    const string = this.#string as OpenString;
    if (this.#escape !== undefined) return this.#inEscape(chunk, at, string);
    // Each search is done once per chunk and position found, or a log full of escapes would be searched to its end at each.
    if (this.#scanned !== chunk) {
      this.#scanned = chunk;
      this.#quoteAt = -2;
      this.#slashAt = -2;
    }
    if (this.#quoteAt !== -1 && this.#quoteAt < at) this.#quoteAt = chunk.indexOf(QUOTE, at);
    if (this.#slashAt !== -1 && this.#slashAt < at) this.#slashAt = chunk.indexOf(BACKSLASH, at);
    const quote = this.#quoteAt;
    const backslash = this.#slashAt;
    const end = quote < 0 ? chunk.length : quote;
    const stop = backslash >= 0 && backslash < end ? backslash : end;
    if (stop > at) {
      string.pieces.push(chunk.subarray(at, stop));
      string.bytes += stop - at;
    }
    if (stop === chunk.length) return stop;
    if (stop === backslash) {
      flush(string);
      this.#escape = '';
      return stop + 1;
    }
    this.#endString(string);
    return stop + 1;
  }

  #inEscape(chunk: Buffer, at: number, string: OpenString): number {
    const escape = this.#escape as string;
    const byte = chunk[at] as number;
    if (escape === '') {
      if (byte === 0x75) {
        this.#escape = 'u';
        return at + 1;
      }
      const plain = ESCAPES[byte];
      if (plain === undefined) throw new JsonSyntaxError('Bad escaped character in JSON');
      string.parts.push(plain);
      this.#escape = undefined;
      return at + 1;
    }
    const digit = String.fromCharCode(byte);
    if (!/[0-9a-fA-F]/.test(digit)) throw new JsonSyntaxError('Bad Unicode escape in JSON');
    const hex = escape + digit;
    if (hex.length < 5) {
      this.#escape = hex;
    } else {
      string.parts.push(String.fromCharCode(Number.parseInt(hex.slice(1), 16)));
      this.#escape = undefined;
    }
    return at + 1;
  }

  #endString(string: OpenString): void {
    let text: string;
    if (string.parts.length === 0) {
      text = decoded(string);
    } else {
      flush(string);
      text = string.parts.join('');
    }
    this.#string = undefined;
    if (this.#expect === 'key' || this.#expect === 'key-or-close') {
      const top = this.#stack.at(-1) as { key: string | undefined };
      top.key = text;
      this.#expect = 'colon';
      return;
    }
    this.#value(text);
  }
}

/** The string's bytes read since its last escape, as text (an escape is ASCII, so no character is cut). */
function decoded(string: OpenString): string {
  const { pieces } = string;
  if (pieces.length === 0) return '';
  const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, string.bytes);
  pieces.length = 0;
  string.bytes = 0;
  // The same text either way; latin1 makes long ASCII an external string (see the top of the file).
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  if (CONTROL.test(text)) throw new JsonSyntaxError('Bad control character in string literal in JSON');
  return text;
}

/** Moves the bytes read since the last escape into the string's text. */
function flush(string: OpenString): void {
  const text = decoded(string);
  if (text !== '') string.parts.push(text);
}
