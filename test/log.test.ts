import { describe, expect, it } from 'vitest';
import { describeError } from '../src/log.js';

describe('describeError', () => {
  it('names the error class and message on one line, without the stack', () => {
    const error = new TypeError('x is not a function');
    expect(describeError(error)).toBe('TypeError: x is not a function');
    expect(describeError(new RangeError('multi\nline'))).toBe('RangeError: multi\nline');
    expect(describeError(error)).not.toContain('    at ');
  });

  it('turns anything else thrown into text', () => {
    expect(describeError('plain string')).toBe('plain string');
    expect(describeError(42)).toBe('42');
    expect(describeError(undefined)).toBe('undefined');
  });
});
