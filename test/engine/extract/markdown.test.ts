import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../../src/engine/ingest/extract/markdown.js';

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
});
