import { describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../src/engine/ingest/chunker.js';

function sentence(n: number): string {
  return `Sentence number ${n} talks about nutrition and health in some detail.`;
}

describe('chunkMarkdown', () => {
  it('returns no chunks for empty or whitespace-only input', () => {
    expect(chunkMarkdown('')).toEqual([]);
    expect(chunkMarkdown('  \n\t\n\r\n   ')).toEqual([]);
  });

  it('keeps plain text without headings under an empty heading path', () => {
    const chunks = chunkMarkdown('Just some text.\n\nAnother paragraph.');
    expect(chunks).toEqual([{ position: 0, headings: [], body: 'Just some text.\n\nAnother paragraph.' }]);
  });

  it('builds nested heading paths from ATX headings and drops deeper levels on a new heading', () => {
    const md = [
      '# Guide',
      'intro',
      '## Install',
      'install text',
      '### Linux',
      'linux text',
      '## Usage ##',
      'usage text',
      '#### Deep',
      'deep text',
      '# Other',
      'other text',
    ].join('\n');
    const chunks = chunkMarkdown(md);
    expect(chunks.map((c) => [c.headings, c.body])).toEqual([
      [['Guide'], 'intro'],
      [['Guide', 'Install'], 'install text'],
      [['Guide', 'Install', 'Linux'], 'linux text'],
      [['Guide', 'Usage'], 'usage text'],
      [['Guide', 'Usage', 'Deep'], 'deep text'],
      [['Other'], 'other text'],
    ]);
    expect(chunks.map((c) => c.position)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('recognises setext headings and does not repeat heading lines in bodies', () => {
    const md = 'Title\n=====\n\nfirst\n\nPart A\n------\nsecond';
    const chunks = chunkMarkdown(md);
    expect(chunks).toEqual([
      { position: 0, headings: ['Title'], body: 'first' },
      { position: 1, headings: ['Title', 'Part A'], body: 'second' },
    ]);
  });

  it('does not emit chunks for headings without content', () => {
    const chunks = chunkMarkdown('# A\n## B\n\n## C\ntext under C');
    expect(chunks).toEqual([{ position: 0, headings: ['A', 'C'], body: 'text under C' }]);
  });

  it('keeps fenced code whole, with heading-like and blank lines inside', () => {
    const code = ['```python title="x"', '# not a heading', '', 'x = 1', '', '', '# also not', '```'].join('\n');
    const md = `# Real\n\nbefore\n\n${code}\n\nafter`;
    const chunks = chunkMarkdown(md);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.headings).toEqual(['Real']);
    expect(chunks[0]?.body).toBe(`before\n\n${code}\n\nafter`);
  });

  it('supports tilde fences and longer fences that contain shorter ones', () => {
    const tilde = '~~~\n# inside tilde\n```\n~~~';
    const long = '````md\n```\n# inside\n```\n````';
    const chunks = chunkMarkdown(`# H\n${tilde}\n\n${long}\n# Next\ntext`);
    expect(chunks[0]).toEqual({ position: 0, headings: ['H'], body: `${tilde}\n\n${long}` });
    expect(chunks[1]).toEqual({ position: 1, headings: ['Next'], body: 'text' });
  });

  it('never splits a fenced code block longer than maxChars', () => {
    const lines = Array.from({ length: 200 }, (_, n) => `line ${n} of code`);
    const code = ['```', ...lines.slice(0, 100), '', ...lines.slice(100), '```'].join('\n');
    const md = `intro paragraph\n\n${code}\n\noutro paragraph`;
    const chunks = chunkMarkdown(md, { targetChars: 300, maxChars: 600 });
    const codeChunks = chunks.filter((c) => c.body.includes('line 0 of code'));
    expect(codeChunks).toHaveLength(1);
    expect(codeChunks[0]?.body).toBe(code);
    expect(code.length).toBeGreaterThan(600);
    expect(chunks.map((c) => c.body)).toEqual(['intro paragraph', code, 'outro paragraph']);
  });

  it('treats an unclosed fence as running to the end of the document', () => {
    const chunks = chunkMarkdown('```\n# not a heading\n\ntext');
    expect(chunks).toEqual([{ position: 0, headings: [], body: '```\n# not a heading\n\ntext' }]);
  });

  it('packs consecutive blocks of a section up to targetChars', () => {
    const paragraphs = Array.from({ length: 6 }, (_, n) => `${sentence(n)} ${sentence(n + 100)}`);
    const chunks = chunkMarkdown(paragraphs.join('\n\n'), { targetChars: 300, maxChars: 600 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.body.length).toBeLessThanOrEqual(300);
    expect(chunks.map((c) => c.body).join('\n\n')).toBe(paragraphs.join('\n\n'));
  });

  it('splits a huge paragraph at sentence boundaries', () => {
    const sentences = Array.from({ length: 400 }, (_, n) => sentence(n));
    const chunks = chunkMarkdown(`# Big\n\n${sentences.join(' ')}`);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.headings).toEqual(['Big']);
      expect(chunk.body.length).toBeLessThanOrEqual(2400);
      expect(chunk.body.startsWith('Sentence number')).toBe(true);
      expect(chunk.body.endsWith('detail.')).toBe(true);
    }
    expect(chunks.map((c) => c.body).join(' ')).toBe(sentences.join(' '));
  });

  it('does not split after abbreviations followed by lowercase words', () => {
    const text = `${'Intro words here. '.repeat(10)}Use e.g. this one. ${'More words follow. '.repeat(10)}`;
    const chunks = chunkMarkdown(text, { targetChars: 20, maxChars: 40 });
    expect(chunks.map((c) => c.body)).toContain('Use e.g. this one.');
  });

  it('falls back to whitespace, then to a hard cut, for sentences longer than maxChars', () => {
    const words = Array.from({ length: 300 }, (_, n) => `word${n}`).join(' ');
    const wordChunks = chunkMarkdown(words, { targetChars: 100, maxChars: 200 });
    expect(wordChunks.length).toBeGreaterThan(1);
    for (const chunk of wordChunks) {
      expect(chunk.body.length).toBeLessThanOrEqual(200);
      expect(chunk.body).toMatch(/^word\d+( word\d+)*$/);
    }
    expect(wordChunks.map((c) => c.body).join(' ')).toBe(words);

    const blob = 'x'.repeat(1000);
    const blobChunks = chunkMarkdown(blob, { targetChars: 100, maxChars: 200 });
    for (const chunk of blobChunks) expect(chunk.body.length).toBeLessThanOrEqual(200);
    expect(blobChunks.map((c) => c.body).join('')).toBe(blob);
  });

  it('keeps a table whole when it is under maxChars even if it exceeds targetChars', () => {
    const rows = Array.from({ length: 12 }, (_, n) => `| item ${n} | value ${n} |`);
    const table = ['| name | value |', '| --- | :---: |', ...rows].join('\n');
    expect(table.length).toBeGreaterThan(200);
    const chunks = chunkMarkdown(`# Data\n\nSome intro text.\n\n${table}\n\nAfter.`, { targetChars: 200, maxChars: 600 });
    expect(chunks.map((c) => c.body)).toEqual(['Some intro text.', table, 'After.']);
  });

  it('splits an oversized table between rows and repeats its header', () => {
    const rows = Array.from({ length: 40 }, (_, n) => `| item ${n} | value ${n} |`);
    const header = '| name | value |\n| --- | --- |';
    const chunks = chunkMarkdown(`${header}\n${rows.join('\n')}`, { targetChars: 200, maxChars: 400 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.body.startsWith(`${header}\n| item `)).toBe(true);
    const allRows = chunks.flatMap((c) => c.body.split('\n').slice(2));
    expect(allRows).toEqual(rows);
  });

  it('keeps lists and blockquotes as blocks, including nested items and fenced code in items', () => {
    const list = ['- one', '  continued', '- two', '  - nested', '', '- three', '  ```', '  # not a heading', '', '  ```'].join(
      '\n',
    );
    const quote = '> quoted line\n> # quoted heading text\nlazy continuation';
    const chunks = chunkMarkdown(`# L\n\n${list}\n\n${quote}\n\nend`, { targetChars: 20, maxChars: 200 });
    expect(chunks.map((c) => c.body)).toEqual([list, quote, 'end']);
    for (const chunk of chunks) expect(chunk.headings).toEqual(['L']);
  });

  it('splits an oversized list between items', () => {
    const items = Array.from({ length: 50 }, (_, n) => `- item number ${n}`);
    const chunks = chunkMarkdown(items.join('\n'), { targetChars: 100, maxChars: 200 });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flatMap((c) => c.body.split('\n'))).toEqual(items);
  });

  it('splits a table written as a list of rows between its rows, also in a quote, and never inside quoted code', () => {
    const row = (n: number) => [`-   **Name**: row ${n}`, '    ', `    **Notes**: ${sentence(n)}`, '    ', '    ```', `    call(${n});`, '    ', '    done();', '    ```'];
    const rows = Array.from({ length: 12 }, (_, n) => row(n).join('\n'));
    const pieces = (markdown: string) => chunkMarkdown(markdown, { targetChars: 300, maxChars: 600 }).map((c) => c.body);
    const listed = pieces(rows.join('\n\n'));
    expect(listed.length).toBeGreaterThan(2);
    // Rows as stored: lines without trailing white space.
    const stored = rows.map((text) => text.replace(/ +$/gm, ''));
    for (const body of listed) expect(body.split(/\n(?=-)/).every((item) => stored.includes(item.trimEnd()))).toBe(true);
    const quote = (text: string) => text.split('\n').map((line) => `> ${line}`.trimEnd()).join('\n');
    const quoted = pieces(rows.map(quote).join('\n>\n'));
    expect(quoted.length).toBeGreaterThan(2);
    for (const body of quoted) {
      expect(body.startsWith('> -   **Name**: row ')).toBe(true);
      expect(body.endsWith('```')).toBe(true);
      expect(body.match(/```/g)?.length).toBe(2 * (body.match(/\*\*Name\*\*/g)?.length ?? 0));
    }
    const lines = (text: string) => text.split('\n').filter((line) => line !== '>');
    expect(lines(quoted.join('\n'))).toEqual(lines(rows.map(quote).join('\n')));
  });

  it('normalises CRLF line endings', () => {
    const lf = '# Title\n\nfirst line\nsecond line\n\n```\n# code\n```\n\nSub\n---\nbody';
    const crlf = lf.replace(/\n/g, '\r\n');
    expect(chunkMarkdown(crlf)).toEqual(chunkMarkdown(lf));
    for (const chunk of chunkMarkdown(crlf)) expect(chunk.body).not.toContain('\r');
    expect(chunkMarkdown(crlf).map((c) => c.headings)).toEqual([['Title'], ['Title', 'Sub']]);
  });

  it('ignores thematic breaks and treats #hashtags as text', () => {
    const chunks = chunkMarkdown('para one\n\n***\n\n#hashtag text');
    expect(chunks).toEqual([{ position: 0, headings: [], body: 'para one\n\n#hashtag text' }]);
  });

  it('is deterministic and handles a megabyte of Markdown', () => {
    const section = [
      '## Section',
      sentence(1).repeat(8),
      '- a\n- b\n- c',
      '```js\nconst x = 1;\n# comment\n```',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '> quote',
    ].join('\n\n');
    let md = '# Big document\n\n';
    while (md.length < 1_000_000) md += `${section}\n\n`;
    const first = chunkMarkdown(md);
    const second = chunkMarkdown(md);
    expect(second).toEqual(first);
    expect(first.length).toBeGreaterThan(1000);
    expect(first.every((c) => c.body.trim() !== '' && c.headings.join('/') === 'Big document/Section')).toBe(true);
  });

  it('leaves out an outermost heading that repeats the title, ignoring case, spacing, punctuation and markup', () => {
    const md = '# 13.7. Locking  and **Indexes**\n\nintro\n\n## Examples\n\nexample text\n\n# Appendix\n\nmore';
    expect(chunkMarkdown(md, { title: '13.7 locking and indexes' }).map((c) => c.headings)).toEqual([[], ['Examples'], ['Appendix']]);
    // Without a title, or with another one, the path stays whole; only the outermost heading is compared.
    expect(chunkMarkdown(md).map((c) => c.headings)).toEqual([['13.7. Locking  and **Indexes**'], ['13.7. Locking  and **Indexes**', 'Examples'], ['Appendix']]);
    expect(chunkMarkdown(md, { title: 'Locking' }).map((c) => c.headings[0])).toEqual(['13.7. Locking  and **Indexes**', '13.7. Locking  and **Indexes**', 'Appendix']);
    expect(chunkMarkdown('# Guide\n\n## Examples\n\ntext', { title: 'Examples' }).map((c) => c.headings)).toEqual([['Guide', 'Examples']]);
    expect(chunkMarkdown('# C++\n\ntext', { title: 'C' }).map((c) => c.headings)).toEqual([['C++']]);
  });

  it('leaves out an outermost heading that the title begins with (a title that adds the site name), word for word', () => {
    const md = '# csv — CSV File Reading and Writing\n\nintro\n\n## Examples\n\ntext';
    const title = 'csv — CSV File Reading and Writing — Python 3.11.2 documentation';
    expect(chunkMarkdown(md, { title }).map((c) => c.headings)).toEqual([[], ['Examples']]);
    // Only whole words: "Over" does not begin "Overview".
    expect(chunkMarkdown('# Over\n\ntext', { title: 'Overview of pools' }).map((c) => c.headings)).toEqual([['Over']]);
  });

  it('keeps a heading as the reader sees it: its links and images by their text', () => {
    const md =
      '# [`csv`](https://docs.test/csv.html#module-csv "csv: Write and read") — CSV File Reading\n\n' +
      '## The [reader](<https://docs.test/a b.html>) ![icon](https://docs.test/i.png) and [\\[x\\]](https://docs.test/x_\\(y\\).html)\n\ntext';
    expect(chunkMarkdown(md).map((c) => c.headings)).toEqual([['`csv` — CSV File Reading', 'The reader icon and \\[x\\]']]);
  });
});
