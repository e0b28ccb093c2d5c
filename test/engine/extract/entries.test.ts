/**
 * Definition lists whose entries are described become sections: each term a heading one level
 * below the heading in effect, its description the body; tables of contents and link lists stay
 * lists. The chunker then keeps each entry a chunk of its own, under its term.
 */
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../../src/engine/ingest/extract/markdown.js';
import { chunkMarkdown } from '../../../src/engine/ingest/chunker.js';

describe('definition entries', () => {
  // The shape of sqlite3-doc's lang_mathfunc.html: an anchor between entries, the term bold in a <p>.
  const MATH = '<h2>2. Descriptions of math functions</h2><p>All functions return NULL for NULL.</p>' +
    '<dl><a name="sqrt"></a><dt><p><b>sqrt(<i>X</i>)</b></dt><dd><p>Return the square root of X.</dd>' +
    '<a name="tan"></a><dt><p><b>tan(<i>X</i>)</b></dt><dd><p>Return the tangent of X.</dd></dl>';

  it('writes each term as a heading one level below the one in effect, without the bold, its description below it', () => {
    expect(htmlToMarkdown(MATH)).toBe(
      '## 2\\. Descriptions of math functions\n\nAll functions return NULL for NULL.\n\n' +
        '### sqrt(_X_)\n\nReturn the square root of X.\n\n### tan(_X_)\n\nReturn the tangent of X.',
    );
  });

  it('makes each entry, however short, a chunk of its own under its term', () => {
    const chunks = chunkMarkdown(htmlToMarkdown(MATH));
    expect(chunks.map((chunk) => [chunk.headings, chunk.body])).toEqual([
      [['2\\. Descriptions of math functions'], 'All functions return NULL for NULL.'],
      [['2\\. Descriptions of math functions', 'sqrt(_X_)'], 'Return the square root of X.'],
      [['2\\. Descriptions of math functions', 'tan(_X_)'], 'Return the tangent of X.'],
    ]);
  });

  it('writes the enclosing heading again before what follows the list, so that it is not read as part of the last entry', () => {
    const markdown = htmlToMarkdown(`<section><h2>Functions</h2>${'<dl><dt>f()</dt><dd>Does f.</dd></dl>'}<p>See also g.</p></section>` +
      '<section><h2>Next</h2><p>n</p></section>');
    expect(markdown).toBe('## Functions\n\n### f()\n\nDoes f.\n\n## Functions\n\nSee also g.\n\n## Next\n\nn');
    expect(chunkMarkdown(markdown).map((chunk) => chunk.headings)).toEqual([['Functions', 'f()'], ['Functions'], ['Next']]);
  });

  it('does not write the heading again when a heading follows the list, in a section of its own or not', () => {
    expect(htmlToMarkdown('<h1>A</h1><dl><dt>x</dt><dd>Is x.</dd></dl><section><h2>B</h2><p>b</p></section><dl><dt>y</dt><dd>Is y.</dd></dl><h2>C</h2>c')).toBe(
      '# A\n\n## x\n\nIs x.\n\n## B\n\nb\n\n### y\n\nIs y.\n\n## C\n\nc',
    );
  });

  it('writes nothing between lists of one entry each (Sphinx writes a <dl> per function), nor before a section that starts with an anchor', () => {
    const html = '<section><h2>Functions</h2><dl><dt>f()</dt><dd>Does f.</dd></dl>\n<dl><dt>g()</dt><dd>Does g.</dd></dl>' +
      '<p>Both are pure.</p></section><section><a id="next"></a><h2>Next</h2><p>n</p></section>';
    expect(htmlToMarkdown(html)).toBe('## Functions\n\n### f()\n\nDoes f.\n\n### g()\n\nDoes g.\n\n## Functions\n\nBoth are pure.\n\n## Next\n\nn');
  });

  it('gives several terms of one description one heading, and entries of a nested list the level below', () => {
    const html = '<h3>Classes</h3><dl><dt><code>int(x=0)</code></dt><dt><code>int(x, base=10)</code></dt>' +
      '<dd><p>Return an integer.</p><dl><dt>bit_length()</dt><dd>Number of bits.</dd></dl><p>More on int.</p></dd>' +
      '<dt>float(x)</dt><dd>Return a float.</dd></dl>';
    expect(htmlToMarkdown(html)).toBe(
      '### Classes\n\n#### `int(x=0)`; `int(x, base=10)`\n\nReturn an integer.\n\n##### bit\\_length()\n\nNumber of bits.\n\n' +
        '#### `int(x=0)`; `int(x, base=10)`\n\nMore on int.\n\n#### float(x)\n\nReturn a float.',
    );
  });

  it('reads a term with a link as its text in the heading path, and stops at h6', () => {
    const markdown = htmlToMarkdown('<h6>Deep</h6><dl><dt><a href="https://x.test/#p">page_size</a></dt><dd>Sets the page size.</dd></dl>');
    expect(markdown).toBe('###### Deep\n\n###### [page\\_size](https://x.test/#p)\n\nSets the page size.');
    expect(chunkMarkdown(markdown).map((chunk) => chunk.headings)).toEqual([['page\\_size']]);
  });

  it('starts entries at h2 on a page without headings, and takes <div> groups of terms and descriptions', () => {
    expect(htmlToMarkdown('<dl><div><dt>a</dt><dd>Is a.</dd></div><div><dt>b</dt><dd>Is b.</dd></div></dl>')).toBe('## a\n\nIs a.\n\n## b\n\nIs b.');
  });

  it('leaves a table of contents a list: terms that are links over nested lists, and descriptions that are only links', () => {
    const toc = '<h2>Contents</h2><dl class="toc"><dt><a href="a.html">1. Intro</a></dt><dd><dl><dt><a href="b.html">1.1. Start</a></dt></dl></dd>' +
      '<dt><a href="c.html">2. Use</a></dt><dd><a href="d.html">Using it</a></dd></dl>';
    expect(htmlToMarkdown(toc)).not.toMatch(/^#{3}/m);
    expect(htmlToMarkdown(toc)).toContain('[1\\. Intro](a.html)');
  });

  it('leaves a list as it is when one term is a passage, a term has no description, or the list holds other text', () => {
    const long = 'x'.repeat(121);
    expect(htmlToMarkdown(`<h2>H</h2><dl><dt>a</dt><dd>Is a.</dd><dt>${long}</dt><dd>Is long.</dd></dl>`)).not.toContain('###');
    expect(htmlToMarkdown('<h2>H</h2><dl><dt>a</dt><dd>Is a.</dd><dt>b</dt></dl>')).not.toContain('###');
    expect(htmlToMarkdown('<h2>H</h2><dl>stray<dt>a</dt><dd>Is a.</dd></dl>')).not.toContain('###');
    expect(htmlToMarkdown(`<h2>H</h2><dl><dt>a</dt><dd>Is a.</dd><dt>${'y'.repeat(120)}</dt><dd>Is long.</dd></dl>`)).toContain(`### ${'y'.repeat(120)}`);
  });

  it('leaves a list in a list item, a table cell or a quote as it is: Markdown cannot hold a heading there', () => {
    const list = '<dl><dt>a</dt><dd>Is a.</dd></dl>';
    for (const html of [`<ul><li>${list}</li></ul>`, `<table><tr><td>${list}</td><td><p>x</p></td></tr></table>`, `<blockquote>${list}</blockquote>`]) {
      expect(htmlToMarkdown(`<h2>H</h2>${html}`)).not.toMatch(/^#{3}/m);
    }
  });
});
