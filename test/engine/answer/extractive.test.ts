/** Choosing what to quote from a passage whose matched words are marked as the search marks them. */
import { describe, expect, it } from 'vitest';
import { composeExtractive, selectBlocks, type Passage } from '../../../src/engine/answer/extractive.js';
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

  it('leaves out a lead-in that introduces a lead-in left out', () => {
    // "This image shows an added slot:" (the image is not text), then "change it to read:" before a long listing.
    const code = ['```', ...Array.from({ length: 40 }, (_, i) => `step ${i}`), '```'].join('\n');
    const text = `To ${mark('vacuum')} a table, click Add. This image shows the ${mark('full')} form:\n\nOne problem: it is slow. To fix it, change the settings to read:`;
    const quoted = selectBlocks(passage(`Intro on ${mark('vacuum')}.\n\n${text}`, code), weights, 150);
    expect(quoted.length).toBeGreaterThan(0);
    expect(quoted.some((block) => block.endsWith(':'))).toBe(false);
  });

  it('quotes a long code block after all when its lead-in is the only thing to quote, shortened to its first lines', () => {
    const code = ['```', ...Array.from({ length: 40 }, (_, i) => `step ${i}`), '```'].join('\n');
    const quoted = selectBlocks(passage(`Use ${mark('vacuum')} ${mark('full')} as follows:`, code), weights, 150);
    const shortened = ['```', ...Array.from({ length: 12 }, (_, i) => `step ${i}`), '...', '```'].join('\n');
    expect(quoted).toEqual(['Use vacuum full as follows:', shortened]);
  });

  it('quotes only the lines of a long code listing that hold the question words, within its fences', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `.command${i}   does thing ${i}`);
    lines[41] = `.${mark('indexes')} ?TABLE?   Show names of ${mark('indexes')}`;
    const code = ['```', ...lines, '```'].join('\n');
    const [quoted] = selectBlocks(passage(code), new Map([['indexes', 3]]), 150);
    expect(quoted).toBe(['```', '...', '.indexes ?TABLE?   Show names of indexes', '...', '```'].join('\n'));
  });

  it('shortens long prose to the sentences holding the question\'s words', () => {
    const long = Array.from({ length: 30 }, (_, i) => `Sentence ${i} says nothing much at all here.`).join(' ');
    const quoted = selectBlocks(passage(`${long} Then ${mark('VACUUM')} rewrites the file. ${long}`), weights, 60);
    expect(quoted.join(' ')).toContain('Then VACUUM rewrites the file.');
    expect(quoted.join(' ').split(/\s+/).length).toBeLessThan(80);
  });
});

describe('long lists and tables', () => {
  it('keeps a table\'s header and the rows holding the question\'s words', () => {
    const rows = Array.from({ length: 30 }, (_, i) => `| op ${i} | does something rather long and wordy for row number ${i} |`);
    rows[17] = `| op 17 | runs ${mark('VACUUM')} on the file |`;
    const table = ['| op | what |', '| --- | --- |', ...rows].join('\n');
    expect(selectBlocks(passage(table), weights, 60)).toEqual(['| op | what |\n| --- | --- |\n| op 17 | runs VACUUM on the file |']);
  });

  it('keeps the rows of a table written as a list that hold the question\'s words, each row whole', () => {
    // As the chunker stores it: the blank lines inside an item are empty.
    const row = (i: number, what: string) => `-   **Call**: \`op${i}\`\n\n    **Notes**: ${what}\n\n    \`\`\`\n    op${i}();\n    \`\`\``;
    const rows = Array.from({ length: 12 }, (_, i) => row(i, `does something rather long and wordy for row number ${i}`));
    rows[7] = row(7, `runs ${mark('VACUUM')} on the file`);
    const quoted = selectBlocks(passage(rows.join('\n\n')), weights, 60);
    expect(quoted).toEqual([`${row(7, 'runs VACUUM on the file')}\n\n- …`]);
    const quote = (text: string) => text.split('\n').map((line) => (line === '' ? '>' : `> ${line}`)).join('\n');
    expect(selectBlocks(passage(quote(rows.join('\n\n'))), weights, 60)).toEqual([quote(`${row(7, 'runs VACUUM on the file')}\n\n- …`)]);
  });
});

describe('composeExtractive', () => {
  it('quotes a passage that two pages repeat once, citing the first page', () => {
    const text = `Run ${mark('VACUUM')} ${mark('FULL')} to rebuild the file.`;
    const answer = composeExtractive([{ ...passage(text), title: 'Vacuum' }, { ...passage(text), sourceId: 2, title: 'Vacuum (copy)' }], weights);
    expect(answer.references.map((reference) => reference.title)).toEqual(['Vacuum']);
    expect(answer.content).toBe('From **Vacuum** [1]:\n\nRun VACUUM FULL to rebuild the file.\n');
  });

  it('reads links of a local folder\'s page as their text (they lead nowhere from an answer) and keeps links with a scheme', () => {
    const text = `Run ${mark('VACUUM')} ${mark('FULL')} as [the reference](../sql/vacuum.html#full) and [the wiki](https://wiki.example/vacuum) say; see [below](#notes).\n\n\`\`\`\nprint(links[0](x))\n\`\`\``;
    const answer = composeExtractive([{ ...passage(text), title: 'Vacuum' }], weights);
    expect(answer.content).toContain('as the reference and [the wiki](https://wiki.example/vacuum) say; see below.');
    expect(answer.content).toContain('print(links[0](x))');
  });

  it('opens by naming the question words found nowhere, when there are any', () => {
    const text = `Run ${mark('VACUUM')} ${mark('FULL')} to rebuild the file.`;
    const answer = composeExtractive([{ ...passage(text), title: 'Vacuum' }], weights, ['windows']);
    expect(answer.content).toMatch(/^The knowledge base covers this only in part: none of the passages found mention “windows”\. This is the closest passage:\n\nFrom \*\*Vacuum\*\* \[1\]/);
  });
});
