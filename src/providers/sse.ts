/**
 * A server-sent events parser (the `text/event-stream` format of the HTML standard), fed bytes as
 * they arrive. A line or a UTF-8 character may be split across chunks; lines end in LF, CRLF or a
 * lone CR; comment lines (keep-alives such as `: ping`) are skipped; the data lines of one event
 * are joined with LF; an event is complete at the blank line that ends it.
 */

export interface ServerSentEvent {
  /** The `event:` field; "message" when the event names none. */
  readonly event: string;
  readonly data: string;
}

export class ServerSentEventParser {
  readonly #decoder = new TextDecoder('utf-8');
  #buffer = '';
  /** The previous chunk ended in CR: an LF starting the next one belongs to that line end. */
  #afterCarriageReturn = false;
  #event = '';
  #data: string[] = [];

  /** The events that `chunk` completes. */
  push(chunk: Uint8Array): ServerSentEvent[] {
    return this.#consume(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The events still pending once the stream ended, including a last one whose blank line never came. */
  end(): ServerSentEvent[] {
    const events = this.#consume(`${this.#decoder.decode()}\n\n`);
    this.#buffer = '';
    return events;
  }

  #consume(text: string): ServerSentEvent[] {
    if (this.#afterCarriageReturn && text !== '') {
      this.#afterCarriageReturn = false;
      this.#buffer += text.startsWith('\n') ? text.slice(1) : text;
    } else {
      this.#buffer += text;
    }
    const events: ServerSentEvent[] = [];
    const lineEnd = /\r\n|\r|\n/g;
    let start = 0;
    for (let match = lineEnd.exec(this.#buffer); match; match = lineEnd.exec(this.#buffer)) {
      const event = this.#line(this.#buffer.slice(start, match.index));
      if (event) events.push(event);
      start = lineEnd.lastIndex;
      this.#afterCarriageReturn = match[0] === '\r' && start === this.#buffer.length;
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  /** Takes one line; returns the event a blank line completes. */
  #line(line: string): ServerSentEvent | undefined {
    if (line === '') {
      const event = this.#data.length === 0 ? undefined : { event: this.#event || 'message', data: this.#data.join('\n') };
      this.#event = '';
      this.#data = [];
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    return undefined;
  }
}
