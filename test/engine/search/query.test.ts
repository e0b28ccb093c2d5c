import { describe, expect, it } from 'vitest';
import { MAX_QUERY_TEXT_CHARS, parseQuery } from '../../../src/engine/search/query.js';

describe('parseQuery', () => {
  it('quotes distinct topic words in order, joined by OR, and keeps a question of function words only', () => {
    expect(parseQuery('How do I install the Widget? install "now" OR NOT')).toEqual({
      terms: ['install', 'widget', 'now'],
      match: '"install" OR "widget" OR "now"',
      onlyStopWords: false,
    });
    expect(parseQuery('What is it?')).toEqual({ terms: ['what', 'is', 'it'], match: '"what" OR "is" OR "it"', onlyStopWords: true });
    expect(parseQuery('?!')).toEqual({ terms: [], match: undefined, onlyStopWords: true });
  });

  it('drops contractions of function words, apostrophe or not, but keeps a word they would spell without it', () => {
    expect(parseQuery("Why won't it start when I'm logged in? I've tried, it doesn’t. Let's see what I'd do").terms).toEqual([
      'start',
      'logged',
      'tried',
      'see',
    ]);
    expect(parseQuery('Which ID is the user’s?').terms).toEqual(['id', 'users']);
  });

  it('stops at 32 topic words', () => {
    const words = Array.from({ length: 40 }, (_, i) => `topic${i}`);
    expect(parseQuery(words.join(' ')).terms).toEqual(words.slice(0, 32));
  });

  it('reads no further than its window, however long the text', () => {
    // Only function words inside the window; a topic word after it would change the query if it were read.
    const filler = 'what is it '.repeat(Math.floor(MAX_QUERY_TEXT_CHARS / 11)).padEnd(MAX_QUERY_TEXT_CHARS, ' ');
    const query = parseQuery(`${filler}zebra ${'x'.repeat(4_000_000)}`);
    expect(query.terms).toEqual(['what', 'is', 'it']);
    expect(query.onlyStopWords).toBe(true);
  });

  it('reads a question and the one before it whole, at their caps', () => {
    const question = `${'what '.repeat(1999)}zebra`;
    expect(question).toHaveLength(10_000);
    expect(parseQuery(`${question} ${question}`).terms).toEqual(['zebra']);
  });
});
