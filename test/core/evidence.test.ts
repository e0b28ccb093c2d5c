/** Packing passages within a budget of estimated tokens (src/core/evidence.ts). */
import { describe, expect, it } from 'vitest';
import { estimateTokens, evidenceNote, packEvidence, type EvidenceCandidate, type QuestionWords } from '../../src/core/evidence.js';

const passage = (text: string, title = 'Page'): EvidenceCandidate => ({ title, headings: ['Section'], link: null, text });

const A = 'The first sentence is about frobnication. The second one explains the wibble level.';
const B = 'Another page says something else entirely. It goes on for a while to fill the budget.';

describe('packEvidence', () => {
  it('estimates a token as 4 characters, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });

  it('keeps the passages whole, in order, while they fit', () => {
    const packed = packEvidence([passage(A), passage(B)], 1000);
    expect(packed.passages.map((p) => p.text)).toEqual([A, B]);
    expect(packed.tokens).toBe(estimateTokens(A) + estimateTokens(B));
    expect(packed.left_out).toBe(0);
    expect(evidenceNote(packed)).toBeUndefined();
  });

  it('cuts the passage that does not fit after a whole sentence and counts the rest as left out', () => {
    const budget = estimateTokens(A) + estimateTokens('Another page says something else entirely.');
    const packed = packEvidence([passage(A), passage(B), passage('A third one.')], budget);
    expect(packed.passages[1]).toMatchObject({ text: 'Another page says something else entirely.', cut: true });
    expect(packed.tokens).toBeLessThanOrEqual(budget);
    expect(packed.left_out).toBe(1);
    expect(evidenceNote(packed)).toMatch(/^The last passage was cut and 1 more passage was left out to keep within \d+ tokens: raise evidence_tokens/);
  });

  it('leaves out a passage of which no sentence fits', () => {
    const packed = packEvidence([passage(A), passage(B)], estimateTokens(A) + 2);
    expect(packed.passages).toHaveLength(1);
    expect(packed.left_out).toBe(1);
  });

  it('gives no sentence twice: overlapping passages keep what is new, a repeat is dropped', () => {
    const overlapping = 'The second one explains the wibble level. And then a new sentence follows here.';
    const packed = packEvidence([passage(A), passage(overlapping), passage(A, 'Copy')], 1000);
    expect(packed.passages.map((p) => p.text)).toEqual([A, 'And then a new sentence follows here.']);
  });

  it('leaves out what the caller has already: the sentences the answer quotes are not given again', () => {
    const answer = `From **Page › Section** [1]:\n\nThe second one explains the wibble level.\n`;
    const packed = packEvidence([passage(A), passage('The second one explains the wibble level.', 'Copy'), passage(B)], 1000, answer);
    expect(packed.passages.map((p) => p.text)).toEqual(['The first sentence is about frobnication.', B]);
  });

  it('leaves no empty code block where the answer quotes every line of one', () => {
    const code = 'Return a dictionary from the view and it becomes JSON.\n```\nreturn jsonify(name=user.name)\n```\nThe response has the JSON mimetype set.';
    const answer = 'From **Page › Section** [1]:\n\n```\nreturn jsonify(name=user.name)\n```\n';
    const [kept] = packEvidence([passage(code)], 1000, answer).passages;
    expect(kept!.text).toBe('Return a dictionary from the view and it becomes JSON.\nThe response has the JSON mimetype set.');
    // A block with a line left keeps its fences.
    const twoLines = 'Example:\n```\nreturn jsonify(name=user.name)\nreturn jsonify(items=list_of_items)\n```';
    expect(packEvidence([passage(twoLines)], 1000, answer).passages[0]!.text).toBe('Example:\n```\nreturn jsonify(items=list_of_items)\n```');
  });

  it('with a budget of 0 gives nothing and counts every passage as left out', () => {
    expect(packEvidence([passage(A), passage(B)], 0)).toMatchObject({ passages: [], tokens: 0, left_out: 2 });
  });

  describe('with the question\'s words: by what each passage adds', () => {
    /** The question "how do I tune the zorblax cache": words found as written, lower-cased. */
    const words: QuestionWords = {
      weights: new Map([
        ['zorblax', 3],
        ['cache', 1],
        ['tune', 2],
      ]),
      of: (text) => new Set(text.toLowerCase().match(/zorblax|cache|tune/g) ?? []),
    };
    const repeat = (n: number) =>
      passage(`The zorblax cache keeps entries number ${n} in memory. The zorblax cache of pool ${n} is shared between its workers, each reading from it.`, `Cache ${n}`);
    const tuning = passage('To tune it, set cache_size in zorblax.toml. A larger size keeps more entries.', 'Settings');
    const ranked = [repeat(1), repeat(2), repeat(3), tuning];
    const budget = estimateTokens(repeat(1).text) * 2 + estimateTokens(tuning.text);

    it('takes a lower passage holding a word the better ones lack before another one repeating theirs', () => {
      // By rank alone the budget ends on the third repeat, cut, and the passage that says how is left out.
      expect(packEvidence(ranked, budget).passages.map((p) => p.title)).not.toContain('Settings');
      const packed = packEvidence(ranked, budget, '', words);
      expect(packed.passages.map((p) => p.title)).toContain('Settings');
      expect(packed.tokens).toBeLessThanOrEqual(budget);
    });

    it('still gives the best-ranked passage first, and the others when the budget has room', () => {
      const packed = packEvidence(ranked, 1000, '', words);
      expect(packed.passages[0]?.title).toBe('Cache 1');
      expect(packed.passages.map((p) => p.title).sort()).toEqual(['Cache 1', 'Cache 2', 'Cache 3', 'Settings']);
      expect(packed.left_out).toBe(0);
    });

    it('counts the words the answer holds as given: a passage adding only those keeps its rank', () => {
      const other = passage('Entries of the zorblax cache expire after an hour unless pinned.', 'Expiry');
      expect(packEvidence([repeat(1), other, tuning], 1000, '', words).passages.map((p) => p.title)).toEqual(['Cache 1', 'Settings', 'Expiry']);
      const answer = 'To tune it, set the size.';
      expect(packEvidence([repeat(1), other, tuning], 1000, answer, words).passages.map((p) => p.title)).toEqual(['Cache 1', 'Expiry', 'Settings']);
    });
  });
});
