import { describe, expect, it } from 'vitest';
import { CitationRenumbering } from '../../../src/engine/answer/model/citations.js';

/** Feeds `pieces` as a stream would, returning what was handed out and the cited sources. */
function renumber(pieces: readonly string[], sources = ['a', 'b', 'c']) {
  const citations = new CitationRenumbering(sources);
  const text = pieces.map((piece) => citations.push(piece)).join('') + citations.end();
  return { text, cited: citations.cited };
}

describe('CitationRenumbering', () => {
  it('numbers sources in the order they are first cited, and the references follow that order', () => {
    const { text, cited } = renumber(['Use X [3]. Then Y [1', '] and again [3].']);
    expect(text).toBe('Use X [1]. Then Y [2] and again [1].');
    expect(cited).toEqual(['c', 'a']);
  });

  it('drops citations of sources the prompt never gave, with the spaces before them', () => {
    const { text, cited } = renumber(['Made up [9]. Real [2, 7].']);
    expect(text).toBe('Made up. Real [1].');
    expect(cited).toEqual(['b']);
  });

  it('keeps the spaces around citations it keeps, and around brackets that are text, however the pieces fall', () => {
    const input = 'Late  [2] and [note] here [7] then  `a [9]`  end ';
    const expected = 'Late  [1] and [note] here then  `a [9]`  end ';
    expect(renumber([input]).text).toBe(expected);
    expect(renumber(input.split('')).text).toBe(expected);
  });

  it('reads a citation split over many pieces and one with several numbers', () => {
    const { text, cited } = renumber(['See ', '[', '2', ',', ' 3', ']', ' now.']);
    expect(text).toBe('See [1, 2] now.');
    expect(cited).toEqual(['b', 'c']);
  });

  it('spells out a range of sources, renumbered like the rest, in whatever pieces it comes', () => {
    const input = 'See [3] and [1-2], also [1 – 3] and [2-9].';
    for (const pieces of [[input], input.split('')]) {
      const { text, cited } = renumber(pieces);
      expect(text).toBe('See [1] and [2, 3], also [2, 3, 1] and [3, 1].');
      expect(cited).toEqual(['c', 'a', 'b']);
    }
  });

  it('leaves brackets that are not citations, and code, untouched', () => {
    const input = 'A [link](https://x) and [note 1] and `arr[0]` and:\n\n```js\nconst x = y[2];\n```\n\nDone [1].';
    const { text, cited } = renumber(input.split(''));
    expect(text).toBe(input);
    expect(cited).toEqual(['a']);
  });

  it('hands out an unfinished bracket when the stream ends', () => {
    expect(renumber(['Trailing [1']).text).toBe('Trailing [1');
  });
});
