import { describe, expect, it } from 'vitest';
import { attachmentReferences } from '../../../src/engine/attachments/references.js';

describe('attachmentReferences', () => {
  const strip = attachmentReferences(['app.log', 'crash-2024.txt']);

  it.each([
    ['Why does my app log say the pool is exhausted?', 'Why does the pool is exhausted?'],
    ['The attached file says the pool is exhausted. Why?', 'the pool is exhausted. Why?'],
    ['What does this error mean for my pool?', 'What does for my pool?'],
    ["What does the log's last line mean?", 'What does last line mean?'],
    ['Why is the pool exhausted in app.log?', 'Why is the pool exhausted in ?'],
    ['What do my crash logs show about the pool?', 'What do about the pool?'],
  ])('takes out what points at the files: %s', (question, stripped) => {
    expect(strip(question)).toBe(stripped);
  });

  it.each(['How do I fix the pool error?', 'Where is the config file?', 'Why does the connection pool log nothing?'])(
    'keeps a word for a file that a topic qualifies: %s',
    (question) => {
      expect(strip(question)).toBe(question);
    },
  );
});
