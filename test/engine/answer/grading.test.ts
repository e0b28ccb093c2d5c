/** The arithmetic of trust with a model, and of the context's token budget. */
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../src/engine/answer/model/context-window.js';
import { combinedTrust } from '../../../src/engine/answer/model/grading.js';

describe('trust with a model', () => {
  it('weighs the grade 60 and the evidence 40, never above the extractive ceiling of 90', () => {
    expect(combinedTrust(50, 1)).toBe(80);
    expect(combinedTrust(50, 0)).toBe(20);
    expect(combinedTrust(90, 1)).toBe(90);
    expect(combinedTrust(80, 1)).toBe(90);
  });

  it('is the evidence score when the grade could not be read', () => {
    expect(combinedTrust(63, undefined)).toBe(63);
  });
});

describe('token estimate', () => {
  it('counts about four ASCII characters a token, and a token for each character outside ASCII', () => {
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('データベースを作成する')).toBe(11);
    expect(estimateTokens('index 索引')).toBe(4);
  });
});
