import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { escapeMarkdown } from '../../../src/engine/ingest/extract/markdown/escape.js';
import { htmlToMarkdown } from '../../../src/engine/ingest/extract/markdown.js';
import { markupToMarkdown } from '../../../src/engine/ingest/extract/markup.js';

describe('htmlToMarkdown', () => {
  it('writes ATX headings, fenced code with its language, and GFM tables', () => {
    const markdown = htmlToMarkdown(
      '<h2>Setup</h2><p>Use <code>x&lt;0</code> &amp; go.</p>' +
        '<pre class="highlight"><code class="language-sql">SELECT 1;\n</code></pre>' +
        '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>',
    );
    expect(markdown).toContain('## Setup');
    expect(markdown).toContain('Use `x<0` & go.');
    expect(markdown).toContain('```sql\nSELECT 1;\n```');
    expect(markdown).toMatch(/\| a +\| b +\|\n\| -+ \| -+ \|\n\| 1 +\| 2 +\|/);
  });

  it('keeps the whole text of a code block that holds several elements', () => {
    const markdown = htmlToMarkdown('<pre class="synopsis">WITH <em><code>with_query</code></em> SELECT <code>x</code>;</pre>');
    expect(markdown).toContain('```\nWITH with_query SELECT x;\n```');
  });

  it('converts a table of a thousand rows, and task lists with their state', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => `<tr><td>${i}</td><td>keyword ${i}</td></tr>`).join('');
    const markdown = htmlToMarkdown(`<table><thead><tr><th>n</th><th>word</th></tr></thead><tbody>${rows}</tbody></table>`);
    expect(markdown.split('\n')).toHaveLength(1002);
    expect(htmlToMarkdown('<ul><li><input type="checkbox" checked> done</li><li><input type="checkbox"> open</li></ul>')).toBe(
      '-   [x] done\n-   [ ] open',
    );
  });

  it('drops scripts, styles and forms, and fences code that itself holds backticks', () => {
    const markdown = htmlToMarkdown('<p>Text</p><script>alert(1)</script><style>p{}</style><form><input></form><pre>a ``` b</pre>');
    expect(markdown).not.toMatch(/alert|p\{\}/);
    expect(markdown).toContain('````\na ``` b\n````');
  });

  it('keeps the white space at the edges of inline elements outside their markup, once', () => {
    expect(htmlToMarkdown('<p>a <b> b </b> c<span> </span>d <em>e</em>f</p>')).toBe('a **b** c d _e_f');
    expect(htmlToMarkdown('<p>one\n\t  two <br> three</p>')).toBe('one two  \nthree');
  });

  it('escapes Markdown characters, and what would start a list, heading or quote', () => {
    expect(htmlToMarkdown('<p>1. one</p><p>- dash</p><p>## h</p><p>&gt; q</p><p>*a* _b_ [c] `d`</p>')).toBe(
      '1\\. one\n\n\\- dash\n\n\\## h\n\n\\> q\n\n\\*a\\* \\_b\\_ \\[c\\] \\`d\\`',
    );
  });

  it('numbers ordered lists from their start and indents nested lists', () => {
    expect(htmlToMarkdown('<ol start="3"><li>x<ul><li>y</li></ul></li><li><p>z</p></li></ol>')).toBe('3.  x\n    -   y\n4.  z');
  });

  it('aligns table columns by their cells, spans columns and escapes pipes, with the caption above', () => {
    const markdown = htmlToMarkdown(
      '<table><caption>Sizes</caption><tr><td align="right">1|2</td><td colspan="2" style="text-align: center">3</td></tr>' +
        '<tr><td align="right">4</td><td>5</td></tr></table>',
    );
    expect(markdown).toBe('Sizes\n\n|     |     |\n| ---: | :---: |\n| 1\\|2 | 3   |     |\n| 4   | 5   |');
  });

  it('writes a table whose cells hold blocks as a list of its rows, each cell under its heading, code fenced', () => {
    const html =
      '<table><caption>Calls</caption><thead><tr><th>Call</th><th>Notes</th></tr></thead><tbody>' +
      '<tr><td><code>open</code></td><td><ul><li>a</li><li>b</li></ul></td></tr>' +
      '<tr><td><code>read</code></td><td><p>Reads.</p><pre>read(fd);\n\nclose(fd);</pre></td></tr></tbody></table>';
    expect(htmlToMarkdown(html)).toBe(
      [
        'Calls',
        '',
        '-   **Call**: `open`',
        '    ',
        '    **Notes**:',
        '    ',
        '    -   a',
        '    -   b',
        '',
        '-   **Call**: `read`',
        '    ',
        '    **Notes**: Reads.',
        '    ',
        '    ```',
        '    read(fd);',
        '    ',
        '    close(fd);',
        '    ```',
      ].join('\n'),
    );
  });

  it('keeps a table of inline cells a GFM table, line breaks as <br>, even when a cell is one paragraph', () => {
    expect(htmlToMarkdown('<table><tr><th>a</th><th>b</th></tr><tr><td>1<br>2</td><td><p>x</p></td></tr></table>')).toBe(
      '| a   | b   |\n| --- | --- |\n| 1  <br>2 | x   |',
    );
  });

  it('writes the headings of a single column once above its rows (function tables of the PostgreSQL manual)', () => {
    const html =
      '<table><thead><tr><th><p>Operator</p><p>Description</p></th></tr></thead><tbody>' +
      '<tr><td><p><code>-&gt;</code></p><p>Gets a field.</p></td></tr><tr><td><p><code>#&gt;</code></p><p>Gets a path.</p></td></tr></tbody></table>';
    expect(htmlToMarkdown(html)).toBe('**Operator / Description**\n\n-   `->`\n    \n    Gets a field.\n\n-   `#>`\n    \n    Gets a path.');
  });

  it('leaves empty cells and empty rows out of a table of blocks', () => {
    const html =
      '<table><tr><th>a</th><th>b</th><th>c</th></tr><tr><td></td><td><p>p</p><p>q</p></td><td> </td></tr>' +
      '<tr><td></td><td></td><td></td></tr><tr><td>1</td><td></td><td>3</td></tr></table>';
    expect(htmlToMarkdown(html)).toBe('-   **b**: p\n    \n    q\n\n-   **a**: 1\n    \n    **c**: 3');
  });

  it('labels cells by the columns they span, under headings that span columns', () => {
    const html =
      '<table><thead><tr><th colspan="2">Size</th><th>Note</th></tr><tr><th>min</th><th>max</th><th></th></tr></thead>' +
      '<tbody><tr><td colspan="2">any</td><td><p>x</p><p>y</p></td></tr><tr><td>1</td><td>2</td><td>z</td></tr></tbody></table>';
    expect(htmlToMarkdown(html)).toBe(
      '-   **Size / min**: any\n    \n    **Note**: x\n    \n    y\n\n-   **Size / min**: 1\n    \n    **Size / max**: 2\n    \n    **Note**: z',
    );
  });

  it('writes a table of one row that holds blocks, and a table that holds tables, as their cells one after another', () => {
    expect(htmlToMarkdown('<table><tr><td><ul><li>a</li></ul></td><td></td><td><h2>T</h2><p>b</p></td></tr></table><p>after</p>')).toBe(
      '-   a\n\n## T\n\nb\n\nafter',
    );
    const nested =
      '<table><tr><td><table><tr><th>k</th><th>v</th></tr><tr><td>x</td><td><pre>y</pre></td></tr></table></td><td>side</td></tr>' +
      '<tr><td>2</td><td>3</td></tr></table>';
    expect(htmlToMarkdown(nested)).toBe('-   **k**: x\n    \n    **v**:\n    \n    ```\n    y\n    ```\n\nside\n\n2\n\n3');
  });

  it('quotes a table of blocks in a blockquote line by line', () => {
    expect(htmlToMarkdown('<blockquote><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td><p>x</p><p>y</p></td></tr></table></blockquote>')).toBe(
      '> -   **a**: 1\n>     \n>     **b**: x\n>     \n>     y',
    );
  });

  it('quotes blocks line by line and writes links with their title', () => {
    expect(htmlToMarkdown('<blockquote><p>q</p><p><a href="http://x/a b" title="say &quot;hi&quot;">l</a><br>n</p></blockquote>')).toBe(
      '> q\n> \n> [l](<http://x/a b> "say \\"hi\\"")  \n> n',
    );
  });

  it('reads a checkbox in a label of a list item as checked', () => {
    expect(htmlToMarkdown('<ul><li><label><input type="checkbox" checked> done</label></li></ul>')).toBe('-    [x] done');
  });

  it('leaves at most one blank line after a block, even before an element that writes nothing', () => {
    expect(htmlToMarkdown('<p><code>a<ol><ul>b</ul>\n</ol><s> </s></code></p>')).toBe('`a  b  `');
  });

  it('leaves the element it converts as it was', () => {
    const { document } = parseHTML('<!DOCTYPE html><html><body><main><p>a  <b> b </b><!-- c --></p><td>lost cell</td>' +
      '<table><tr><td>1</td></tr><tr><td>2</td></tr></table></main></body></html>');
    const main = document.querySelector('main');
    if (!main) throw new Error('no main');
    const before = main.outerHTML;
    expect(htmlToMarkdown(main)).toBe('a **b**\n\nlost cell\n\n|     |\n| --- |\n| 1   |\n| 2   |');
    expect(main.outerHTML).toBe(before);
  });
});


describe('escapeMarkdown', () => {
  it('escapes what a text starts with only when it is whole, also when the text ends right there', () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['', ''],
      ['-', '\\-'],
      ['+', '+'],
      ['+ a', '\\+ a'],
      ['#', '#'],
      ['######', '######'],
      ['###### a', '\\###### a'],
      ['####### a', '####### a'],
      ['7', '7'],
      ['12.', '12.'],
      ['12. a', '12\\. a'],
      ['12.a', '12.a'],
      ['1_2. a', '1\\_2. a'],
    ];
    for (const [text, escaped] of cases) expect(escapeMarkdown(text), text).toBe(escaped);
  });
});

describe('markupToMarkdown', () => {
  it('keeps the text of markup nested deeper than the walk can follow', () => {
    const depth = 50_000;
    const markup = `${'<div>'.repeat(depth)}<p>deep <b>text</b></p>${'</div>'.repeat(depth)}`;
    expect(markupToMarkdown(markup, 'html')).toBe('deep text');
  });
});
