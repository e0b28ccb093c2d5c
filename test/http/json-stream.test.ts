import { describe, expect, it } from 'vitest';
import { JsonStreamParser, JsonSyntaxError } from '../../src/http/json-stream.js';

/** A small deterministic generator, so that a failure can be repeated. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Parses `bytes` fed in pieces cut at `cuts`; the error thrown, if any. */
function parseInPieces(bytes: Buffer, cuts: readonly number[]): { value: unknown } | { error: unknown } {
  const parser = new JsonStreamParser();
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      parser.write(bytes.subarray(from, cut));
      from = cut;
    }
    return { value: parser.end() };
  } catch (error) {
    return { error };
  }
}

function viaJsonParse(bytes: Buffer): { value: unknown } | { error: unknown } {
  try {
    return { value: JSON.parse(bytes.toString('utf8')) };
  } catch (error) {
    return { error };
  }
}

const ALPHABET = ['a', 'é', '€', '😀', '"', '\\', '\n', '\t', '\u0001', '\u2028', ' ', '/', 'x'];

function randomValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 5 : 7));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return [0, -1, 1.5, -0.25e-7, 1e21, 123456789012, Number.MAX_SAFE_INTEGER][Math.floor(next() * 7)];
    case 3:
    case 4:
      return Array.from({ length: Math.floor(next() * 12) }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join('');
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--) object[String(randomValue(next, 9))] = randomValue(next, depth + 1);
      return object;
    }
  }
}

function randomCuts(next: () => number, length: number): number[] {
  const cuts = new Set<number>();
  for (let i = Math.floor(next() * 6); i > 0; i--) cuts.add(Math.floor(next() * (length + 1)));
  return [...cuts].sort((a, b) => a - b);
}

describe('JSON parsed as it arrives', () => {
  it('gives what JSON.parse gives, however the text is cut (1,000 random documents)', () => {
    const next = random(27);
    for (let round = 0; round < 1000; round++) {
      const value = randomValue(next, 0);
      const text = next() < 0.5 ? JSON.stringify(value) : JSON.stringify(value, null, 2);
      const bytes = Buffer.from(next() < 0.2 ? text.replace(/[^ -~\t\n\r]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : text);
      expect(parseInPieces(bytes, randomCuts(next, bytes.length)), text).toEqual({ value: JSON.parse(bytes.toString('utf8')) });
    }
  });

  it('also byte by byte, through multi-byte characters, escapes and surrogate pairs', () => {
    const text = Buffer.from(JSON.stringify({ a: ['é€😀\n"\\/', '\ud83d', 1.5e3, -0, true, false, null, {}, []], 'k\u00e9y': { nested: [[[]]] } }));
    const cuts = Array.from({ length: text.length - 1 }, (_, index) => index + 1);
    expect(parseInPieces(text, cuts)).toEqual({ value: JSON.parse(text.toString('utf8')) });
  });

  it('refuses what JSON.parse refuses, and takes what it takes, among 3,000 damaged documents', () => {
    const next = random(4);
    const noise = ['"', '\\', ',', ':', '{', '}', '[', ']', 'e', '-', '0', '.', ' ', '\u0000', '\n', 't', 'u', 'x', '\u00ff'];
    for (let round = 0; round < 3000; round++) {
      const text = JSON.stringify(randomValue(next, 0));
      const at = Math.floor(next() * (text.length + 1));
      const damaged = next() < 0.5 ? text.slice(0, at) + noise[Math.floor(next() * noise.length)]! + text.slice(at) : text.slice(0, at) + text.slice(at + 1);
      // An empty body is no value (the routes' `{}`), where JSON.parse('') throws.
      if (damaged === '') continue;
      const bytes = Buffer.from(damaged);
      const expected = viaJsonParse(bytes);
      const got = parseInPieces(bytes, randomCuts(next, bytes.length));
      if ('error' in expected) {
        expect('error' in got, damaged).toBe(true);
        expect((got as { error: unknown }).error, damaged).toBeInstanceOf(JsonSyntaxError);
      } else {
        expect(got, damaged).toEqual(expected);
      }
    }
  });

  it('refuses texts JSON.parse refuses: trailing commas, bad escapes, raw control characters, leftovers, blank text', () => {
    for (const text of ['{"a":1,}', '[1,]', '"\\x"', '"\\u12G4"', '"a\u0001b"', '{} {}', '01', '1.', '-', '.5', 'nul', 'truth', '{"a" 1}', '{1:2}', '   ', '"open', '[', '\ufeff{}']) {
      const bytes = Buffer.from(text);
      expect(viaJsonParse(bytes), text).toHaveProperty('error');
      expect(parseInPieces(bytes, []), text).toHaveProperty('error');
    }
  });

  it('reads an empty text as no value, and __proto__ as an own key, as JSON.parse does', () => {
    expect(parseInPieces(Buffer.alloc(0), [])).toEqual({ value: undefined });
    const parsed = (parseInPieces(Buffer.from('{"__proto__": {"polluted": true}}'), [5]) as { value: Record<string, unknown> }).value;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads a string of 20 MB in 64 KiB pieces whole', () => {
    const payload = 'QUJD'.repeat(5_000_000);
    const bytes = Buffer.from(JSON.stringify({ data: `data:application/pdf;base64,${payload}` }));
    const cuts = Array.from({ length: Math.floor(bytes.length / 65536) }, (_, index) => (index + 1) * 65536);
    const parsed = parseInPieces(bytes, cuts) as { value: { data: string } };
    expect(parsed.value.data.length).toBe(payload.length + 28);
    expect(parsed.value.data.endsWith('QUJDQUJD')).toBe(true);
  });
});
