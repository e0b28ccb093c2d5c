import { describe, expect, it } from 'vitest';
import { sentencesOf, speechText } from '../../../src/engine/speech/speech-text.js';

describe('speechText', () => {
  it('says "Code block" for triple backticks and "Inline code" for single ones, as the spec says', () => {
    expect(speechText('Run this:\n```python\nprint(1)\n```\nthen `guru-mcp serve` starts.')).toBe(
      'Run this:\nCode block.\nthen Inline code starts.',
    );
  });

  it('reads Markdown as a person would: link text, no heading marks, bullets or emphasis', () => {
    expect(speechText('## Setup\n\nSee **the** [docs](https://example.com/docs) and _notes_.\n\n- first item\n2. second ~~item~~')).toBe(
      'Setup.\nSee the docs and notes.\nfirst item.\nsecond item.',
    );
  });

  it('leaves out a leading heading that repeats the question, and keeps other headings', () => {
    const answer = '# How do I rotate keys?\n\nCreate a new key.';
    expect(speechText(answer, 'how do I rotate keys')).toBe('Create a new key.');
    expect(speechText(answer)).toBe('Create a new key.');
    expect(speechText('# Keys\n\nCreate a new key.', 'how do I rotate keys')).toBe('Keys.\nCreate a new key.');
  });

  it('says an unclosed code fence as a code block too', () => {
    expect(speechText('Try:\n```\nrm -rf /tmp/x')).toBe('Try:\nCode block.');
  });

  it('says tilde fences, and longer fences around code that holds backticks, as one code block', () => {
    expect(speechText('Run:\n~~~sql\nSELECT 1;\n~~~\nDone.')).toBe('Run:\nCode block.\nDone.');
    expect(speechText('Quote:\n````md\n```\ninner\n```\n````\nDone.')).toBe('Quote:\nCode block.\nDone.');
    expect(speechText('Run:\n~~~python\nprint(1)\n~~~', undefined, 'described')).toBe('Run:\nHere is a code example in Python.');
  });
});

describe('sentencesOf', () => {
  it('splits prepared text into sentences and drops pieces with no words', () => {
    expect(sentencesOf('One. Two!\nThree? --- .')).toEqual(['One.', 'Two!', 'Three?']);
  });

  it('cuts a run-on sentence at word boundaries', () => {
    const parts = sentencesOf(Array.from({ length: 300 }, () => 'word').join(' '), 100);
    expect(parts.length).toBeGreaterThan(10);
    expect(parts.every((part) => part.length <= 100)).toBe(true);
    expect(parts.join(' ').split(' ')).toHaveLength(300);
  });
});

describe('speechText for the provider voice (described code)', () => {
  it('says a code block as a code example in its language, and inline code as its words', () => {
    expect(speechText('Run:\n```py\nprint(1)\n```\n```\nmake\n```\nthen `frob.run()`.', undefined, 'described')).toBe(
      'Run:\nHere is a code example in Python.\nHere is a code example.\nthen frob.run().',
    );
  });

  it('keeps dotted names and version numbers inside one sentence', () => {
    expect(sentencesOf('Call frob.run() with version 3.5. Then stop.')).toEqual(['Call frob.run() with version 3.5.', 'Then stop.']);
  });
});
