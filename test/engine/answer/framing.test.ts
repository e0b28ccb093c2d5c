/** Telling the sentence that asks from the sentences that frame it. */
import { describe, expect, it } from 'vitest';
import { splitFraming } from '../../../src/engine/answer/framing.js';

describe('splitFraming', () => {
  it('takes the sentence ending with a question mark as what is asked, the rest as framing', () => {
    expect(splitFraming('People are uploading huge files. How do I limit the upload size?')).toEqual({
      asks: 'How do I limit the upload size?',
      framing: 'People are uploading huge files.',
    });
    expect(splitFraming('How do I limit the upload size? Our users send videos.')).toEqual({
      asks: 'How do I limit the upload size?',
      framing: 'Our users send videos.',
    });
  });

  it('takes a sentence opening as a question when none ends with a question mark', () => {
    expect(splitFraming('My site is slow. How can I cache whole pages.')).toEqual({ asks: 'How can I cache whole pages.', framing: 'My site is slow.' });
  });

  it('reads the question whole when it is one sentence, points back at its framing, or asks nothing of its own', () => {
    expect(splitFraming('How do I send a huge CSV to the browser?')).toEqual({ asks: 'How do I send a huge CSV to the browser?', framing: '' });
    expect(splitFraming('My server says EADDRINUSE. What does that mean?').framing).toBe('');
    expect(splitFraming('I want to drop a column. How?').framing).toBe('');
    expect(splitFraming('The file stays big after I deleted most of the data. How do I get the space back?').framing).toBe('');
    expect(splitFraming('Set the limit with MAX_CONTENT_LENGTH. The rest is fine.').framing).toBe('');
  });
});
