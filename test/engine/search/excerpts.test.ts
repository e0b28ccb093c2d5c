/** Chunks as evidence: their text as a caller reads it, and the part that bears on the question (src/engine/search/excerpts.ts). */
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../src/core/evidence.js';
import { evidenceOf, evidenceText, questionWords, stemOf, tightened } from '../../../src/engine/search/excerpts.js';
import type { ChunkHit } from '../../../src/engine/search/retriever.js';

const hit = (chunkId: number, title: string, body: string): ChunkHit => ({
  chunkId,
  sourceId: chunkId,
  sourceType: 'TEXT',
  url: null,
  title,
  headings: '',
  body,
  labels: '[]',
  position: 0,
  score: 0,
});

describe('evidenceText', () => {
  it('gives links as their text and drops Markdown escapes, leaving code as written', () => {
    const markdown = [
      'Each [database connection](http://127.0.0.1:45123/c3ref/sqlite3.html) runs [PRAGMA foreign\\_keys](http://127.0.0.1:45123/pragma.html#pragma_foreign_keys) first, see `foreign\\_keys`.',
      '',
      '```',
      'sqlite> SELECT 1 \\_ [x](y);',
      '```',
      '![A diagram](diagram.png) shows it.',
    ].join('\n');
    expect(evidenceText(markdown)).toBe(
      [
        'Each database connection runs PRAGMA foreign_keys first, see `foreign\\_keys`.',
        '',
        '```',
        'sqlite> SELECT 1 \\_ [x](y);',
        '```',
        'A diagram shows it.',
      ].join('\n'),
    );
  });

  it('leaves text without links or escapes as it is', () => {
    expect(evidenceText('Plain text, no links.')).toBe('Plain text, no links.');
  });
});

describe('questionWords', () => {
  it('finds the question words in their other forms and by the synonyms the search added', () => {
    expect(stemOf('indexes')).toBe(stemOf('index'));
    expect(stemOf('logging')).toBe(stemOf('log'));
    expect(stemOf('updated')).toBe(stemOf('update'));
    expect(stemOf('install')).not.toBe(stemOf('instal'));
    const words = questionWords(new Map([['remove', 1], ['column', 2]]), new Map([['drop', 'remove']]));
    expect([...words.of('ALTER TABLE … DROP COLUMN removes the columns.')].sort()).toEqual(['column', 'remove']);
    expect([...words.of('Nothing about it here.')]).toEqual([]);
  });
});

describe('tightened', () => {
  const words = questionWords(new Map([['vacuum', 2]]));

  it('keeps the sentences holding a question word and one on either side, marking the gaps', () => {
    const text = 'First intro. Second intro. Third intro. Run VACUUM to rebuild the file. It takes a while. Unrelated one. Another unrelated. Last words.';
    expect(tightened(text, words)).toBe('… Third intro. Run VACUUM to rebuild the file. It takes a while. …');
  });

  it('keeps a code block beside a sentence holding a word whole', () => {
    const text = 'Something else first. Other things.\n\nThe VACUUM command rebuilds it:\n\n```\nsqlite> .dbinfo\nsqlite> .quit\n```\n\nMore text after. And more.';
    expect(tightened(text, words)).toBe('… Other things.\n\nThe VACUUM command rebuilds it:\n\n```\nsqlite> .dbinfo\nsqlite> .quit\n```\n…');
    // A gap before a code block: the fence opens on its own line.
    expect(tightened('One. Two. Three.\n```\nvacuum(db)\n```\nAfter.', words)).toBe('… Three.\n```\nvacuum(db)\n```\nAfter.');
  });

  it('keeps a passage holding no question word whole', () => {
    expect(tightened('Found by its title. Nothing matches here.', words)).toBe('Found by its title. Nothing matches here.');
  });
});

describe('evidenceOf', () => {
  it('within the budget, takes a lower chunk holding the question word the better ones lack', () => {
    // "How do I tune the size of the zorblax cache?": the best chunks repeat "zorblax cache".
    const words = questionWords(new Map([['tune', 2], ['size', 1.5], ['zorblax', 1], ['cache', 0.5]]));
    const repeat = (n: number) =>
      hit(n, `Zorblax cache ${n}`, `The zorblax cache keeps part ${n} of its entries in memory. Workers read the zorblax cache part ${n} before the disk.`);
    const ranked = [repeat(1), repeat(2), repeat(3), hit(4, 'Settings', 'To tune its size, set entries_max in settings.toml.')];
    const budget = estimateTokens(repeat(1).body) * 2 + 20;
    const byRank = evidenceOf(ranked, { tokens: budget });
    expect(byRank?.passages.map((passage) => passage.text).join('\n')).not.toContain('entries_max');
    const chosen = evidenceOf(ranked, { tokens: budget }, '', words);
    expect(chosen?.passages[0]?.title).toBe('Zorblax cache 1');
    expect(chosen?.passages.map((passage) => passage.text).join('\n')).toContain('entries_max');
    expect(chosen?.tokens).toBeLessThanOrEqual(budget);
  });
});
