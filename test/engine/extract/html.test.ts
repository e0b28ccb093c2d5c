import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/engine/ingest/extract/html.js';
import { BLOG_PAGE, DOCS_PAGE } from '../../support/pages.js';

const URL = 'https://docs.acme.test/docs/pooling/';

describe('extractHtml: a documentation page with <main>', () => {
  const { title, markdown } = extractHtml(DOCS_PAGE, URL);

  it('takes the title from og:title', () => {
    expect(title).toBe('Connection pooling');
  });

  it('keeps the content and drops navigation, sidebar, header, footer, breadcrumbs, dialogs and the cookie banner', () => {
    expect(markdown).toContain('# Connection pooling');
    expect(markdown).toContain('## Configuring the pool');
    expect(markdown).toContain('A **pool** keeps connections open');
    expect(markdown).not.toContain('CHROME');
    expect(markdown).not.toMatch(/cookie/i);
  });

  it('keeps code blocks whole, with their languages', () => {
    expect(markdown).toContain('```typescript\nconst pool = new Pool({ max: 10 });\nconst client = await pool.connect();\n```');
    expect(markdown).toContain('```python\nimport acme\npool = acme.Pool(max=10)\n```');
  });

  it('keeps the whole text of a code block whose <code> elements are only parts of it', () => {
    expect(markdown).toContain('```\nacme pool name [ --max count ]\n```');
  });

  it('converts tables to GFM tables', () => {
    expect(markdown).toContain('| Setting | Default | Meaning |\n| --- | --- | --- |');
    expect(markdown).toContain('| `idleTimeout` | 30 s | How long an idle connection stays open |');
  });

  it('keeps nested lists nested', () => {
    expect(markdown).toMatch(
      /^- +Web servers\n {4}- +with many short requests\n {4}- +behind a load balancer\n {8}1\. +one pool per process\n {8}2\. +sized to the database's limit\n- +Batch jobs/m,
    );
  });

  it('makes links absolute against the page URL and drops javascript: hrefs', () => {
    expect(markdown).toContain('[the tuning guide](https://docs.acme.test/docs/guides/tuning.html#pool)');
    expect(markdown).not.toContain('javascript:');
    expect(markdown).toContain('this script link');
  });
});

describe('extractHtml: documentation about cookies', () => {
  // Sphinx names sections and API entries after their module (Python's http.cookies page), SQLite's
  // pages name headings after pragmas: such names are the subject, not a cookie banner.
  const html = `<html><head><title>http.cookies</title></head><body>
    <div class="cookie-bar">We use cookies CHROME <button>OK</button></div>
    <div role="main"><section id="module-http.cookies"><h1>http.cookies — HTTP state management</h1>
      <p>${'The module defines classes for abstracting the concept of cookies, an HTTP state management mechanism. '.repeat(4)}</p>
      <section id="cookie-objects"><h2>Cookie Objects</h2>
        <dl><dt id="http.cookies.BaseCookie.load">BaseCookie.load(rawdata)</dt><dd>Parse rawdata as cookies.</dd></dl>
      </section>
      <h3 id="schema_cookie">PRAGMA schema_cookie</h3><p>The schema version number.</p>
    </section></div></body></html>`;
  const { markdown } = extractHtml(html, 'https://docs.python.test/library/http.cookies.html');

  it('keeps sections, headings and entries named after cookies', () => {
    expect(markdown).toContain('# http.cookies — HTTP state management');
    expect(markdown).toContain('## Cookie Objects');
    expect(markdown).toContain('BaseCookie.load(rawdata)');
    expect(markdown).toContain('### PRAGMA schema\\_cookie');
  });

  it('still drops the cookie banner', () => {
    expect(markdown).not.toContain('CHROME');
  });
});

describe('extractHtml: permalinks', () => {
  // Sphinx (and MkDocs) put a ¶ link to each heading and definition beside it; Docusaurus and Hugo a #.
  const html = `<html><head><title>csv</title></head><body><div role="main">
    <section id="module-csv"><h1><a class="reference internal" href="#module-csv"><code>csv</code></a> — CSV File Reading and Writing<a class="headerlink" href="#module-csv" title="Permalink to this heading">¶</a></h1>
      <p>${'The csv module implements classes to read and write tabular data in CSV format. '.repeat(6)}</p>
      <dl><dt id="csv.reader">csv.reader(csvfile)<a class="headerlink" href="#csv.reader" title="Permalink to this definition">¶</a></dt><dd>Return a reader object.</dd></dl>
      <h2 id="examples">Examples<a class="hash-link" href="#examples" aria-label="Direct link to Examples">#</a></h2>
      <p>See <a href="#csv.reader">the reader</a> and section <a href="#examples">#</a>x.</p>
    </section></div></body></html>`;
  const { markdown } = extractHtml(html, 'https://docs.python.test/library/csv.html');

  it('leaves them out of headings and definitions', () => {
    expect(markdown).toContain('# [`csv`](https://docs.python.test/library/csv.html#module-csv) — CSV File Reading and Writing\n');
    expect(markdown).toContain('csv.reader(csvfile)\n');
    expect(markdown).toContain('## Examples\n');
    expect(markdown).not.toMatch(/¶|Permalink|Direct link/);
  });

  it('keeps links to parts of the page that say something', () => {
    expect(markdown).toContain('See [the reader](https://docs.python.test/library/csv.html#csv.reader)');
  });
});

describe('extractHtml: documentation written as sections headed by an <h1>', () => {
  // Django's documentation theme: no <main> nor role="main"; each page is one or more sections,
  // each headed by an <h1>, beside a sidebar with headings of its own. Readability kept the largest
  // subsection and passed over one whose id holds "meta".
  const entry = (name: string) =>
    `<div class="section" id="s-${name}"><h3>${name}</h3><dl class="py attribute"><dt id="Options.${name}">Options.${name}</dt><dd><p>Sets the model's ${name}, as a list or a name.</p></dd></dl></div>`;
  const html = `<html><head><title>Model Meta options | Django documentation</title></head><body>
    <div id="custom-doc"><div id="hd"><h1><a href="/">Django documentation</a></h1></div>
    <div id="bd"><div id="yui-main"><div class="yui-b"><div class="yui-g" id="ref-models-options">
      <div class="section" id="s-model-meta-options"><h1>Model <code>Meta</code> options</h1>
        <p>This document explains all the possible metadata options that you can give your model in its internal Meta class.</p>
        <div class="section" id="s-available-meta-options"><h2>Available Meta options</h2>
          ${['abstract', 'app_label', 'db_table', 'ordering', 'permissions', 'unique_together'].map(entry).join('\n')}
          <div class="section" id="s-table-names"><h4>Table names</h4><p>${'To save you time, Django automatically derives the name of the database table from the name of your model class and the app that contains it. '.repeat(5)}</p></div>
        </div>
      </div>
      <div class="section" id="s-field-attribute-reference"><h1>Field attribute reference</h1>
        <p>Every Field instance contains several attributes that allow introspecting its behavior, such as related_model and many_to_many.</p>
      </div>
    </div></div></div>
    <div class="yui-b" id="sidebar"><h3>Contents</h3><ul><li><a href="#">SIDEBAR-CONTENTS</a></li></ul><h3>Browse</h3><ul><li><a href="/">SIDEBAR-BROWSE</a></li></ul></div>
    </div></div></body></html>`;
  const { markdown } = extractHtml(html, 'https://docs.django.test/ref/models/options.html');

  it('keeps every section of the page, those named after a chrome word too', () => {
    expect(markdown).toContain('# Model `Meta` options');
    for (const name of ['abstract', 'app_label', 'db_table', 'ordering', 'permissions', 'unique_together']) {
      expect(markdown).toContain(`Options.${name.replaceAll('_', '\\_')}`);
    }
    expect(markdown).toContain('#### Table names');
    expect(markdown).toContain('# Field attribute reference');
  });

  it('leaves the sidebar and the site header out', () => {
    expect(markdown).not.toMatch(/SIDEBAR|Django documentation\]/);
  });
});

describe('extractHtml: pages without a content container', () => {
  it('finds a blog post with Readability and leaves the navigation and the sidebar out', () => {
    const { title, markdown } = extractHtml(BLOG_PAGE, 'https://blog.acme.test/p/sqlite');
    expect(title).toBe('Why we moved to SQLite');
    expect(markdown).toContain('SQLite in write-ahead-log mode lets readers continue while a writer commits.');
    expect(markdown).toContain('Only one writer commits at a time');
    expect(markdown).not.toContain('CHROME');
  });

  // The structure of sqlite3-doc's json1.html: sections as <h2 id=...> in a flat body, the site menu before them.
  const JSON_FUNCTIONS = `<!DOCTYPE html><html><head><title>JSON Functions And Operators</title></head><body>
    <div class="nosearch"><ul class="menu mainmenu"><li><a href="index.html">Home</a></li><li><a href="about.html">About</a></li></ul>
    <ul class="menu submenu" id="submenu"><li><a href="docs.html">Documentation</a></li></ul></div>
    <div class="comments">Reader comments CHROME</div>
    <h1 align="center">JSON Functions And Operators</h1>
    <h2 id="the_json_array_length_function"><span>4.3. </span>The json_array_length() function</h2>
    <p>The json_array_length(X) function returns the number of elements in the JSON array X, or 0 if X is some kind of
    JSON value other than an array. The json_array_length(X,P) locates the array at path P within X and returns the length
    of that array, or 0 if path P locates an element in X that is not a JSON array.</p>
    <a name="jex"></a>
    </p><h2 id="the_json_extract_function"><span>4.4. </span>The json_extract() function</h2>
    <p>The json_extract(X,P1,P2,...) extracts and returns one or more values from the well-formed JSON at X. If only a
    single path P1 is provided, then the SQL datatype of the result is NULL for a JSON null, INTEGER or REAL for a JSON
    numeric value, an INTEGER zero for a JSON false value, an INTEGER one for a JSON true value, the dequoted text for a
    JSON string value, and a text representation for JSON object and array values.</p>
    <h2 id="the_and_operators"><span>4.5. </span>The -> and ->> operators</h2>
    <p>SQLite also supports two operators, -&gt; and -&gt;&gt;, that extract subcomponents of JSON. The SQLite
    implementation of -&gt; and -&gt;&gt; strives to be compatible with both MySQL and PostgreSQL.</p>
    </body></html>`;

  it('keeps a section whose id holds a word that names page chrome inside another word (extra in the_json_extract_function)', () => {
    const { markdown } = extractHtml(JSON_FUNCTIONS, 'https://sqlite.test/json1.html');
    const headings = markdown.split('\n').filter((line) => line.startsWith('## '));
    expect(headings).toEqual(['## 4.3. The json\\_array\\_length() function', '## 4.4. The json\\_extract() function', '## 4.5. The -> and ->> operators']);
  });

  it('still leaves out elements named after page chrome by a whole part of their name (comments)', () => {
    const { markdown } = extractHtml(JSON_FUNCTIONS, 'https://sqlite.test/json1.html');
    expect(markdown).not.toContain('CHROME');
  });

  it('falls back to the cleaned body when Readability finds no article', () => {
    const html = `<html><head><title>Status</title></head><body>
      <header><nav><a href="/">Home CHROME</a></nav></header>
      <div id="cookie-notice">Cookies CHROME</div>
      <p>All systems normal.</p>
      <footer>Footer CHROME</footer></body></html>`;
    const { title, markdown } = extractHtml(html, 'https://status.acme.test/');
    expect(title).toBe('Status');
    expect(markdown).toBe('All systems normal.');
  });

  it('does not take one of several <article>s (a listing) for the content', () => {
    const teaser = (n: number) => `<article><h2>Post ${n}</h2><p>${'Teaser text of a post in a listing. '.repeat(20)}</p></article>`;
    const html = `<html><body><h1>Archive</h1>${[1, 2, 3].map(teaser).join('')}</body></html>`;
    const { markdown } = extractHtml(html, 'https://blog.acme.test/archive');
    expect(markdown).toContain('Post 1');
    expect(markdown).toContain('Post 3');
  });

  it('ignores a <main> that holds almost none of the page', () => {
    const article = '<p>The real text of this page is here, outside of the main element, in a plain div. </p>'.repeat(12);
    const html = `<html><head><title>Odd layout</title></head><body><main><p>Hi</p></main><div class="content">${article}</div></body></html>`;
    expect(extractHtml(html, 'https://acme.test/odd').markdown).toContain('The real text of this page is here');
  });
});

describe('extractHtml: titles', () => {
  const body = '<main><p>Some content for the page, long enough to be a page of its own.</p></main>';

  it('uses <title> without og:title', () => {
    expect(extractHtml(`<html><head><title>  Plain\n  title </title></head><body>${body}</body></html>`, URL).title).toBe('Plain title');
  });

  it('uses the first <h1> without a <title>', () => {
    expect(extractHtml(`<html><body><h1>Heading title</h1>${body}</body></html>`, URL).title).toBe('Heading title');
  });

  it('uses the URL without any of them', () => {
    expect(extractHtml(`<html><body>${body}</body></html>`, URL).title).toBe(URL);
  });
});

describe('extractHtml: pages that leave out the optional <html>, <head> and <body> tags', () => {
  it('reads a page without any of them as it reads the page with them', () => {
    const content = '<h1>Refunds</h1><p>Refunds are possible within 30 days of purchase.</p>';
    const withTags = extractHtml(`<!doctype html><html><head><title>Refund policy</title></head><body>${content}</body></html>`, URL);
    const withoutTags = extractHtml(`<!doctype html><title>Refund policy</title>${content}`, URL);
    expect(withoutTags).toEqual(withTags);
    expect(withoutTags.title).toBe('Refund policy');
    expect(withoutTags.markdown).toContain('Refunds are possible within 30 days of purchase.');
  });

  it('reads a page whose head elements stand without <head>, before its <body>, leaving them out', () => {
    const html = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Shipping</title><link rel="stylesheet" href="/site.css">
      <script>var CHROME = 1;</script><body><h1>Shipping times</h1><p>Parcels leave the warehouse within two days.</p></body></html>`;
    const { title, markdown } = extractHtml(html, URL);
    expect(title).toBe('Shipping');
    expect(markdown).toContain('Parcels leave the warehouse within two days.');
    expect(markdown).not.toContain('CHROME');
  });

  it('keeps content that stands outside <body> in the order of the page', () => {
    const html = `<html><head><title>Returns</title></head><p>Returns are free.</p><body><p>Send the parcel back within a month.</p></body>
      <p>Refunds follow within a week.</p></html>`;
    expect(extractHtml(html, URL).markdown).toBe('Returns are free.\n\nSend the parcel back within a month.\n\nRefunds follow within a week.');
  });

  it('leaves a well-formed page as it is', () => {
    const html = '<!doctype html><html><head><title>Plain</title></head><body><p>Nothing to move.</p></body></html>';
    expect(extractHtml(html, URL)).toEqual({ title: 'Plain', markdown: 'Nothing to move.' });
  });
});

describe('extractHtml: odd HTML', () => {
  it.each([
    ['an empty string', ''],
    ['plain text', 'just some words'],
    ['unclosed tags', '<html><body><div><p>Unclosed <b>bold <i>and italic<table><tr><td>cell'],
    ['stray table cells', '<body><td>lonely cell</td><tr><th>row</th></tr><p>text</p></body>'],
    ['angle brackets', '<<<>>> <!-- <p> --> </div></div></html><html>'],
    ['binary noise', String.fromCharCode(...Array.from({ length: 512 }, (_, index) => (index * 37) % 256))],
    ['a deep nesting', `${'<div>'.repeat(2000)}deep text${'</div>'.repeat(2000)}`],
    ['a deep nesting in a body', `<html><body>${'<div>'.repeat(2000)}deep text${'</div>'.repeat(2000)}</body></html>`],
  ])('does not throw on %s', (_name, html) => {
    const result = extractHtml(html, URL);
    expect(typeof result.markdown).toBe('string');
    expect(result.title.length).toBeGreaterThan(0);
  });

  it('keeps the text of unclosed markup', () => {
    expect(extractHtml('<html><body><main><p>Unclosed <b>bold text that never ends', URL).markdown).toContain('Unclosed **bold text that never ends');
  });

  it('converts a table of thousands of rows', () => {
    const rows = Array.from({ length: 3000 }, (_, index) => `<tr><td>key${index}</td><td>value ${index}</td></tr>`).join('');
    const html = `<html><body><main><h1>Keywords</h1><table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody>${rows}</tbody></table></main></body></html>`;
    const { markdown } = extractHtml(html, URL);
    expect(markdown).toContain('| Key | Value |\n| --- | --- |\n| key0 | value 0 |');
    expect(markdown).toContain('| key2999 | value 2999 |');
  });

  it('unwraps table cells that Readability separated from their table', () => {
    const paragraphs = '<p>A long paragraph of an article, so that Readability takes this page for one. It goes on for a while, with commas, and more words.</p>'.repeat(6);
    const html = `<html><body><div class="post">${paragraphs}<div><td>orphan cell text</td></div></div></body></html>`;
    expect(extractHtml(html, URL).markdown).toContain('A long paragraph of an article');
  });
});
