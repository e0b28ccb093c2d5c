/** Choosing what to quote from a passage whose matched words are marked as the search marks them. */
import { describe, expect, it } from 'vitest';
import { selectBlocks, type Passage } from '../../../src/engine/answer/extractive.js';
import { MARK_CLOSE, MARK_OPEN } from '../../../src/engine/search/retriever.js';

const mark = (word: string) => `${MARK_OPEN}${word}${MARK_CLOSE}`;
const passage = (marked: string, after = ''): Passage => ({ sourceId: 1, title: 'T', headings: '', url: null, before: '', marked, after });
const weights = new Map([
  ['vacuum', 3],
  ['full', 1],
]);

describe('selectBlocks', () => {
  it('quotes a code block with the sentence that introduces it', () => {
    const text = `Unrelated opening words about something else entirely.\n\nTo reclaim space, run:\n\n\`\`\`sql\n${mark('VACUUM')} ${mark('FULL')};\n\`\`\``;
    const quoted = selectBlocks(passage(text), weights, 150);
    expect(quoted.slice(-2)).toEqual(['To reclaim space, run:', '```sql\nVACUUM FULL;\n```']);
  });

  it('leaves out a lead-in whose code block is too long to quote, rather than leave it hanging', () => {
    const code = ['```', ...Array.from({ length: 40 }, (_, i) => `step ${i}`), '```'].join('\n');
    const text = `Use ${mark('vacuum')} ${mark('full')} as follows:`;
    const quoted = selectBlocks(passage(`Intro on ${mark('vacuum')}.\n\n${text}`, code), weights, 150);
    expect(quoted.some((block) => block.endsWith(':'))).toBe(false);
  });

  it('shortens long prose to the sentences holding the question\'s words', () => {
    const long = Array.from({ length: 30 }, (_, i) => `Sentence ${i} says nothing much at all here.`).join(' ');
    const quoted = selectBlocks(passage(`${long} Then ${mark('VACUUM')} rewrites the file. ${long}`), weights, 60);
    expect(quoted.join(' ')).toContain('Then VACUUM rewrites the file.');
    expect(quoted.join(' ').split(/\s+/).length).toBeLessThan(80);
  });
});
