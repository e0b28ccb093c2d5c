/** How an attachment's text is cut into passages to search and quote. */
import { describe, expect, it } from 'vitest';
import { passagesOf } from '../../../src/engine/attachments/passages.js';

describe('passages of a log file', () => {
  it('packs whole lines into fenced passages headed by the lines they hold', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i + 1).padStart(3, '0')} ${'x'.repeat(40)}`);
    const passages = passagesOf({ kind: 'LOG', name: 'app.log', text: lines.join('\r\n') });
    expect(passages.length).toBeGreaterThan(1);
    expect(passages[0]?.headings).toEqual(['Lines 1-24']);
    expect(passages[1]?.headings).toEqual(['Lines 25-48']);
    expect(passages.at(-1)?.headings).toEqual(['Lines 97-100']);
    const unfenced = passages.map((passage) => passage.body.replace(/^```\n|\n```$/g, ''));
    expect(unfenced.join('\n')).toBe(lines.join('\n'));
    expect(passages.map((passage) => passage.position)).toEqual(passages.map((_, i) => i));
  });

  it('counts a final line break as the end of the last line, not as one more line', () => {
    const [passage] = passagesOf({ kind: 'LOG', name: 'export.log', text: 'started export\r\nexport failed: disk full\r\n' });
    expect(passage?.headings).toEqual(['Lines 1-2']);
    expect(passage?.body).toBe('```\nstarted export\nexport failed: disk full\n```');
  });

  it('fences with more backticks than any run in the lines, so a log with fences stays one code block', () => {
    const [passage] = passagesOf({ kind: 'LOG', name: 'odd.log', text: 'a ``` b\n`````' });
    expect(passage?.body).toBe('``````\na ``` b\n`````\n``````');
  });

  it('cuts a line longer than a passage into pieces, keeping its line number', () => {
    const passages = passagesOf({ kind: 'LOG', name: 'min.log', text: `short\n${'y'.repeat(5000)}` });
    expect(passages.map((passage) => passage.headings)).toEqual([['Line 1'], ['Line 2'], ['Line 2'], ['Line 2']]);
  });

  it('makes no passage of blank lines', () => {
    expect(passagesOf({ kind: 'LOG', name: 'empty.log', text: '\n \n' })).toEqual([]);
  });
});

describe('passages of a PDF', () => {
  it('follows the Markdown extracted from it, so that passages cite their page', () => {
    const passages = passagesOf({ kind: 'PDF', name: 'r.pdf', text: '## Page 1\n\nRevenue grew.\n\n## Page 2\n\nCosts stayed flat.' });
    expect(passages.map((passage) => [passage.headings, passage.body])).toEqual([
      [['Page 1'], 'Revenue grew.'],
      [['Page 2'], 'Costs stayed flat.'],
    ]);
  });
});
