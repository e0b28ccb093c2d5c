import { describe, expect, it } from 'vitest';
import { ServerSentEventParser, type ServerSentEvent } from '../../src/providers/sse.js';

const encoder = new TextEncoder();

function parse(chunks: readonly Uint8Array[]): ServerSentEvent[] {
  const parser = new ServerSentEventParser();
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
}

/** The stream cut into two chunks at every byte (also with an empty chunk between), and into single bytes. */
function everySplit(bytes: Uint8Array): Uint8Array[][] {
  const splits = [[bytes], [...bytes].map((byte) => Uint8Array.of(byte))];
  for (let at = 1; at < bytes.length; at++) {
    splits.push([bytes.subarray(0, at), bytes.subarray(at)], [bytes.subarray(0, at), new Uint8Array(0), bytes.subarray(at)]);
  }
  return splits;
}

describe('ServerSentEventParser', () => {
  it('gives the same events wherever the bytes are split: mid-line, mid-character, between CR and LF', () => {
    const stream = encoder.encode('data: {"t":"grüße 🍞"}\r\n\r\n: keep-alive\r\n\r\ndata: second\r\ndata: line\r\n\r\nevent: error\rdata: x\r\rdata: y\n\n');
    const expected = [
      { event: 'message', data: '{"t":"grüße 🍞"}' },
      { event: 'message', data: 'second\nline' },
      { event: 'error', data: 'x' },
      { event: 'message', data: 'y' },
    ];
    for (const chunks of everySplit(stream)) expect(parse(chunks)).toEqual(expected);
  });

  it('skips comments and fields it does not know, and keeps a value without the space after the colon', () => {
    expect(parse([encoder.encode(': ping\nid: 7\nretry: 1000\ndata:{"a":1}\n\n')])).toEqual([{ event: 'message', data: '{"a":1}' }]);
  });

  it('dispatches a last event whose blank line never came when the stream ends', () => {
    expect(parse([encoder.encode('data: a\n\ndata: [DONE]')])).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: '[DONE]' },
    ]);
  });

  it('sends nothing for blank lines without data', () => {
    expect(parse([encoder.encode('\n\n\r\n: only a comment\n\n')])).toEqual([]);
  });
});
