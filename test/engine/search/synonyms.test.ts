/** Widening a question with the generic synonyms of its words. */
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/engine/search/query.js';
import { withSynonyms } from '../../../src/engine/search/synonyms.js';

describe('withSynonyms', () => {
  it('ORs in the alternatives of each word and says which question word each stands for', () => {
    const query = withSynonyms(parseQuery('How can I remove a column?'));
    expect(query.terms).toEqual(['remove', 'column']);
    expect(query.aliases.get('drop')).toBe('remove');
    expect(query.aliases.get('delete')).toBe('remove');
    expect(query.aliases.has('column')).toBe(false);
    expect(query.match).toBe('"remove" OR "column" OR "delete" OR "drop" OR "erase"');
  });

  it('never makes a word of the question an alias of another', () => {
    const query = withSynonyms(parseQuery('delete or drop a table'));
    expect(query.aliases.has('delete')).toBe(false);
    expect(query.aliases.has('drop')).toBe(false);
    expect(query.aliases.get('remove')).toBe('delete');
  });

  it('leaves a question without known words, or without words, as it was', () => {
    const plain = parseQuery('banana bread recipe');
    expect(withSynonyms(plain)).toEqual({ ...plain, aliases: new Map() });
    const empty = parseQuery('?!');
    expect(withSynonyms(empty).match).toBeUndefined();
  });
});
