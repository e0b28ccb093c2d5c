/** Packing passages within a budget of estimated tokens (src/core/evidence.ts). */
import { describe, expect, it } from 'vitest';
import { estimateTokens, evidenceNote, packEvidence, type EvidenceCandidate } from '../../src/core/evidence.js';

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

  it('with a budget of 0 gives nothing and counts every passage as left out', () => {
    expect(packEvidence([passage(A), passage(B)], 0)).toMatchObject({ passages: [], tokens: 0, left_out: 2 });
  });
});
