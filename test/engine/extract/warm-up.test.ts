/**
 * The page an extraction worker reads when it starts is there to run every path of extraction once:
 * these say that it still reaches them (through its container, past the chrome), so that a change
 * to the page or to extraction that skips one is seen.
 */
import { describe, expect, it } from 'vitest';
import { warmUp } from '../../../src/engine/ingest/extract/warm-up.js';

describe('warmUp', () => {
  const { title, markdown } = warmUp();

  it('reads the page through its container, without its chrome or permalinks', () => {
    expect(title).toBe('Warm & up');
    expect(markdown.startsWith('# The <sample\\> page — — & more\n')).toBe(true);
    expect(markdown).not.toMatch(/Home|Cookies|aside|hidden|foot|¶|Permalink/);
  });

  it('writes inline markup, links against the base, and the escapes of every kind', () => {
    expect(markdown).toContain('_emphasis_, **strong**, _i_, **b**, `code_with_underscores`');
    expect(markdown).toContain('[a link](http://127.0.0.1/docs/other.html#part "A title")');
    expect(markdown).toContain('[entities](http://127.0.0.1/docs/a.html?x=1&y=2 "a&b")');
    expect(markdown).toContain('\\*stars\\*, \\[brackets\\], back\\\\slash, \\`ticks\\`');
    for (const escaped of ['\\- a dash', '\\+ a plus', '\\# a hash', '12\\. a number', '\\~~~ tildes', '\\> a quote', '\\= equals']) {
      expect(markdown).toContain(`\n${escaped}\n`);
    }
  });

  it('writes code blocks, quotes, lists and headings', () => {
    expect(markdown).toContain('```\nSELECT 1;\n  indented <b>\n```');
    expect(markdown).toContain('```python\nprint("hi")\n```');
    expect(markdown).toContain('```js\nlet y = 2;\n```');
    expect(markdown).toContain('> Quoted\n> \n> twice');
    expect(markdown).toContain('-   two\n    \n    -   nested');
    expect(markdown).toContain('3.  three\n4.  four');
    expect(markdown).toContain('\n###### Six\n');
  });

  it('writes GFM tables, with and without headings, and a table of blocks as a list', () => {
    expect(markdown).toContain('| A   | B   | C   |\n| --- | --- | --- |\n| 1   | 2 \\| a pipe |     |');
    expect(markdown).toContain('|     |     |\n| --- | --- |\n| no  | headings |');
    expect(markdown).toContain('-   **h**: 1\n    \n    **k**:\n    \n    -   listed');
    expect(markdown).toContain('\nalone in its table\n');
  });
});
