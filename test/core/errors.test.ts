import { describe, expect, it } from 'vitest';
import { Errors, fieldOf } from '../../src/core/errors.js';

describe('fieldOf', () => {
  it("gives the body field of an operation's errors", () => {
    expect(fieldOf('ask')).toBe('msg');
    expect(fieldOf('semantic_search')).toBe('error');
    expect(fieldOf('follow_up')).toBe('error');
    expect(fieldOf('list_sessions')).toBe('msg');
  });

  it('is the field the factories use unless an error says otherwise', () => {
    expect(Errors.internal('semantic_search').field).toBe(fieldOf('semantic_search'));
    expect(Errors.invalidRequest('list_sources').field).toBe(fieldOf('list_sources'));
    // The throttling body of text_to_speech travels in its own field.
    expect(Errors.throttled('text_to_speech', 3).field).toBe('error');
    expect(fieldOf('text_to_speech')).toBe('msg');
  });
});
