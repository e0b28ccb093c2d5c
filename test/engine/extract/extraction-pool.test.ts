/**
 * Extraction in worker threads gives what extraction in this thread gives, and a task that hangs
 * or kills its worker fails alone. The workers run the built bundle (dist/bin/extraction-worker.js,
 * with its faster linkedom); the comparisons run the TypeScript sources here.
 */
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import writeXlsxFile from 'write-excel-file/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extractDocument, type DocumentKind } from '../../../src/engine/ingest/extract/document.js';
import { ExtractionPool } from '../../../src/engine/ingest/extract/extraction-pool.js';
import { extractHtml } from '../../../src/engine/ingest/extract/html.js';
import { markupToMarkdown, type MarkupFormat } from '../../../src/engine/ingest/extract/markup.js';
import { extractPage, type WebPage } from '../../../src/engine/ingest/extract/page.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';
import { handbook, reportPdf } from '../../support/documents.js';
import { BLOG_PAGE, DOCS_PAGE } from '../../support/pages.js';

const LONG_TABLE_PAGE = `<html><head><title>Settings</title></head><body><main><h1>Settings</h1><table>
  <thead><tr><th>Name</th><th>Default</th></tr></thead>
  <tbody>${Array.from({ length: 80 }, (_, row) => `<tr><td>setting_${row}</td><td>${row * 10}</td></tr>`).join('')}</tbody>
</table></main></body></html>`;

const BARE_PAGE = `<html><head><title>Status</title></head><body>
  <header><nav><a href="/">Home</a></nav></header>
  <div><p>All systems <b>operational</b>.</p><pre><code class="language-sh">curl https://status.acme.test</code></pre></div>
  <footer>© Acme</footer></body></html>`;

/**
 * What the bundle's edits to linkedom touch (scripts/bundle.js), and what the Markdown writer decides
 * on: blank and nearly blank elements, upper- and lower-case tag names, tables with lists in cells or
 * taken apart, tables in tables.
 */
const EDGE_PAGE = `<HTML><HEAD><TITLE>Edge cases</TITLE></HEAD><BODY><MAIN>
  <H2>Blank <SPAN> </SPAN>and <em>\n\t</em>not <b> <i> </i>x</b></H2>
  <p><span><span>  </span></span><a href="/x"> </a><strong><span> </span></strong> words<br> <code> </code></p>
  <div><div>\n  <div> </div>\n</div></div><p>after &nbsp; blanks</p>
  <table><tr><td align="right">1</td><TD>two <code>2</code></TD></tr><tr><td>3</td><td><ul><li>four</li></ul></td></tr></table>
  <table><thead><tr><th align="center">H</th><th></th></tr></thead><tbody><tr><td>a</td><td> </td></tr><tr><td>b</td></tr></tbody></table>
  <table><tr><td><table><tr><td>inner</td><td>cells</td></tr></table></td></tr></table>
  <table><tr><td>only cell</td></tr></table>
  <table><tr><td><pre><code class="language-sql">SELECT 1;</code></pre></td><td>code</td></tr></table>
</MAIN></BODY></HTML>`;

/**
 * What the later edits touch: text that Markdown would misread (escaped only when it holds such a
 * character), class attributes with repeated tokens and odd spacing (parsed without a token set),
 * noise found by class names, lists and code inside tables, a page converted in place.
 */
const ESCAPE_PAGE = `<html><head><title>Escapes</title></head><body><div class="  page  page main-wrapper ">
  <nav class="navbar"><a href="/">Home</a></nav><div class="x  cookie-banner x">We use cookies</div>
  <main class="content	content"><h1>Escapes</h1><p>- not a list</p><p>+ not a list either</p><p>1. not ordered</p>
  <p># not a heading</p><p>=== not a rule</p><p>&gt; not a quote</p><p>~~~ not a fence</p>
  <p>a *star*, an _under_score_, [brackets], back\\slash and \`ticks\`</p><p>plain words only</p>
  <pre class=" language-sql  extra "><code class="language-sql language-sql">SELECT '*' FROM t_1;</code></pre>
  <table><tr><th>Kind</th><th>Items</th></tr><tr><td>list</td><td><ul><li>one</li><li>two</li></ul></td></tr></table>
  <table><tr><th>Plain</th><th>table</th></tr><tr><td>a_b</td><td>[c]</td></tr></table>
  <p class="breadcrumbs">Docs › Escapes</p><p>${'Enough text to count as the page. '.repeat(20)}</p></main>
</div></body></html>`;

/**
 * A page without a content container, so Readability reads it: what the bundle's edits to
 * Readability touch. Elements hidden by their style attribute (linkedom's reading of it: the last
 * non-empty declaration counts, property names as written), and bylines by rel, itemprop and class.
 */
const READABLE_PAGE = `<html><head><title>Field notes</title></head><body><div id="page">
  <div class="nav"><a href="/">Home</a> <a href="/notes/">Notes</a></div>
  <div class="post"><h1>Field notes</h1>
  <p class="byline">By Ann Walker</p><a rel="author" href="/ann">Ann Walker</a><span itemprop="author">A. Walker</span>
  <p>${'The okapi grazes at dawn in the clearing near the river bank. '.repeat(8)}</p>
  <p style="color: red; display: none">Hidden by its style, okapi.</p>
  <p style="display:none;display:block">Shown again by a later declaration, okapi.</p>
  <p style="visibility : hidden ;">Invisible, okapi.</p>
  <p style="DISPLAY: none">Shown: linkedom reads property names as written, okapi.</p>
  <p style="display: ; display: none">Hidden after an empty declaration, okapi.</p>
  <p>${'Tapirs come later in the afternoon and leave before night. '.repeat(8)}</p></div>
</div></body></html>`;

const HTML_FIXTURES: ReadonlyArray<readonly [string, string]> = [
  ['https://docs.acme.test/docs/pooling/', DOCS_PAGE],
  ['https://blog.acme.test/p/sqlite', BLOG_PAGE],
  ['https://docs.acme.test/settings', LONG_TABLE_PAGE],
  ['https://status.acme.test/', BARE_PAGE],
  ['https://edge.acme.test/', EDGE_PAGE],
  ['https://escapes.acme.test/', ESCAPE_PAGE],
  ['https://notes.acme.test/okapi', READABLE_PAGE],
];

/** A page as a server sends it: UTF-8 HTML. */
const htmlPage = (url: string, html: string): WebPage => ({
  url,
  mimeType: 'text/html',
  contentType: 'text/html; charset=utf-8',
  body: new TextEncoder().encode(html),
});

/**
 * Some 6 MB of paragraphs: more than a worker with a 32 MB heap can hold as a DOM, and seconds of
 * parsing, far past a 0.5 s task limit (deeply nested pages, slow before, are now cut short).
 */
const HUGE_PAGE = `<html><body><main>${'<p>Some words of text here, <b>bold</b> and <i>more</i>.</p>'.repeat(100_000)}</main></body></html>`;

/**
 * Under 128 KB (so that a worker is sent more behind it), yet seconds of a worker's time: each
 * unclosed `<p><b>` nests the rest of the page one level deeper. Links or paragraphs of that size
 * take a warm worker 50-150 ms, which a fast machine finishes inside the test's 150 ms limit.
 */
const NESTED_PAGE = `<html><body><main>${'<p><b>x '.repeat(12_000)}</main></body></html>`;

/** Some 200 KB of paragraphs: a tenth of a second or so of a fresh worker's time. */
const MEDIUM_PAGE = `<html><body><main>${'<p>Some words of text here, <b>bold</b> and <i>more</i>.</p>'.repeat(3_000)}</main></body></html>`;

interface WatchedWorker {
  readonly exit: Promise<unknown>;
  exited: boolean;
}

/** The worker threads started while `run` runs, and whether each has exited. */
async function watchWorkers(run: () => Promise<void>): Promise<WatchedWorker[]> {
  const workers: WatchedWorker[] = [];
  const onWorker = (worker: Worker) => {
    const watched: WatchedWorker = { exit: once(worker, 'exit'), exited: false };
    worker.once('exit', () => {
      watched.exited = true;
    });
    workers.push(watched);
  };
  process.on('worker', onWorker);
  try {
    await run();
  } finally {
    process.off('worker', onWorker);
  }
  return workers;
}

describe('ExtractionPool: the same results as extraction in this thread', () => {
  let pool: ExtractionPool;

  beforeAll(() => {
    pool = new ExtractionPool({ threads: 2 });
  });

  afterAll(async () => {
    await pool.close();
  });

  it('gives the same title and Markdown for the web page fixtures', async () => {
    const inWorkers = await Promise.all(HTML_FIXTURES.map(([url, html]) => pool.extractPage(htmlPage(url, html))));
    expect(inWorkers).toEqual(HTML_FIXTURES.map(([url, html]) => extractHtml(html, url)));
    expect(inWorkers[0]?.markdown).toContain('## Configuring the pool');
    const escapes = inWorkers[5]?.markdown ?? '';
    for (const escaped of ['\\- not a list', '1\\. not ordered', '\\# not a heading', '\\*star\\*', '\\[brackets\\]', '```sql']) expect(escapes).toContain(escaped);
    expect(escapes).toContain('plain words only');
    expect(escapes).not.toMatch(/cookies|Home|Docs ›/);
    const readable = inWorkers[6]?.markdown ?? '';
    expect(readable).toContain('Shown again by a later declaration');
    expect(readable).toContain('Shown: linkedom reads property names as written');
    expect(readable).not.toMatch(/Hidden by its style|Invisible|Hidden after an empty/);
  });

  it('decodes pages in the worker by their charset, as this thread does', async () => {
    const pages: WebPage[] = [
      // "Café – “Menü”" in windows-1252, announced by the header only.
      { url: 'https://latin.acme.test/', mimeType: 'text/html', contentType: 'text/html; charset=windows-1252', body: Buffer.from('<title>Caf\xe9 \x96 \x93Men\xfc\x94</title><main>Speisekarte f\xfcr heute</main>', 'latin1') },
      // "日本語" in Shift_JIS, announced by <meta charset> only.
      { url: 'https://ja.acme.test/', mimeType: 'text/html', contentType: 'text/html', body: Buffer.concat([Buffer.from('<meta charset="shift_jis"><title>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]), Buffer.from('</title>')]) },
      // UTF-16 by its byte order mark, served without a type, and a Markdown file.
      { url: 'https://bom.acme.test/', mimeType: '', contentType: undefined, body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<!DOCTYPE html><title>Grüße</title><main>Schöne Grüße</main>', 'utf16le')]) },
      { url: 'https://docs.acme.test/notes.md', mimeType: 'text/markdown', contentType: 'text/markdown', body: new TextEncoder().encode('# Notes\n\nText.\n') },
    ];
    const inWorkers = await Promise.all(pages.map((page) => pool.extractPage(page)));
    expect(inWorkers).toEqual(pages.map((page) => extractPage(page)));
    expect(inWorkers.map((page) => page.title)).toEqual(['Café – “Menü”', '日本語', 'Grüße', 'Notes']);
  });

  it('leaves the bytes it was given as they were', async () => {
    const pages = [htmlPage('https://docs.acme.test/docs/pooling/', DOCS_PAGE), htmlPage('https://blog.acme.test/p/sqlite', BLOG_PAGE)];
    const copies = pages.map((page) => Buffer.from(page.body));
    await Promise.all(pages.map((page) => pool.extractPage(page)));
    expect(pages.map((page) => Buffer.from(page.body))).toEqual(copies);
  });

  it('converts the markup of integrations (Zendesk HTML, Confluence storage format) as this thread does', async () => {
    const markups: ReadonlyArray<readonly [string, MarkupFormat]> = [
      ['<p>Export <b>times out</b> after <code>30 s</code>.</p><ul><li>one</li><li>two</li></ul>', 'html'],
      [
        '<h2>Steps</h2><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter>' +
          '<ac:plain-text-body><![CDATA[./deploy --tag "$TAG"]]></ac:plain-text-body></ac:structured-macro>' +
          '<ac:structured-macro ac:name="warning"><ac:rich-text-body><p>No deploys on Fridays.</p></ac:rich-text-body></ac:structured-macro>',
        'confluence-storage',
      ],
    ];
    const inWorkers = await Promise.all(markups.map(([markup, format]) => pool.markupToMarkdown(markup, format)));
    expect(inWorkers).toEqual(markups.map(([markup, format]) => markupToMarkdown(markup, format)));
    expect(inWorkers[1]).toContain('```bash\n./deploy --tag "$TAG"\n```');
  });

  it('gives the same results for PDF, Word and Excel documents', async () => {
    const workbook = await writeXlsxFile([{ sheet: 'Offices', data: [['Office', 'Days'], ['Berlin', 30], ['Lisbon', 25]] }]).toBuffer();
    const documents: ReadonlyArray<readonly [DocumentKind, Uint8Array]> = [
      ['PDF', await reportPdf()],
      ['WORD', await handbook('Handbook 2025')],
      ['EXCEL', workbook],
    ];
    for (const [kind, data] of documents) {
      const inWorker = await pool.extractDocument(kind, data);
      expect(inWorker).toEqual(await extractDocument(kind, data));
      expect(inWorker.markdown).not.toBe('');
    }
  });

  it('passes content problems on as SourceErrors with their message', async () => {
    const notPdf = new TextEncoder().encode('%PDF-1.7 not really a PDF');
    const here = await extractDocument('PDF', notPdf).then(() => undefined, (error: unknown) => error);
    const there = await pool.extractDocument('PDF', notPdf).then(() => undefined, (error: unknown) => error);
    expect(here).toBeInstanceOf(SourceError);
    expect(there).toBeInstanceOf(SourceError);
    expect((there as Error).message).toBe((here as Error).message);
  });
});

describe('ExtractionPool: failures stay with their task', () => {
  const pools: ExtractionPool[] = [];
  const poolOf = (settings: ConstructorParameters<typeof ExtractionPool>[0]) => {
    const pool = new ExtractionPool(settings);
    pools.push(pool);
    return pool;
  };

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });

  it('stops a task that runs past its time, fails it with the reason, and goes on with a new worker', async () => {
    const pool = poolOf({ threads: 1, taskTimeoutMs: 500 });
    let slow: Promise<unknown> = Promise.resolve();
    let next: Promise<{ title: string }> = Promise.resolve({ title: '' });
    const workers = await watchWorkers(async () => {
      slow = pool.extractPage(htmlPage('https://slow.acme.test/', HUGE_PAGE)).then(() => undefined, (error: unknown) => error);
      next = pool.extractPage(htmlPage('https://docs.acme.test/docs/pooling/', DOCS_PAGE));
      await slow;
      await next;
    });

    const error = await slow;
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toBe('Extracting the text of https://slow.acme.test/ took longer than 0.5 s and was stopped.');
    expect((await next).title).toBe('Connection pooling');
    expect(workers).toHaveLength(2);
    await workers[0]?.exit;
  });

  it('hands the tasks that waited in a worker stopped for a slow page to the next worker', async () => {
    const pool = poolOf({ threads: 1, taskTimeoutMs: 150, tasksPerWorker: 4 });
    let slow: Promise<unknown> = Promise.resolve();
    let waiting: Promise<string[]> = Promise.resolve([]);
    const workers = await watchWorkers(async () => {
      slow = pool.extractPage(htmlPage('https://slow.acme.test/', NESTED_PAGE)).then(() => undefined, (error: unknown) => error);
      // Small enough to be sent to the same worker at once, to wait there behind the slow page.
      waiting = Promise.all(['<p>one</p>', '<p>two</p>'].map((markup) => pool.markupToMarkdown(markup, 'html')));
      await slow;
      await waiting;
    });

    expect((await slow) as Error).toBeInstanceOf(SourceError);
    expect(((await slow) as Error).message).toBe('Extracting the text of https://slow.acme.test/ took longer than 0.2 s and was stopped.');
    expect(await waiting).toEqual(['one', 'two']);
    expect(workers).toHaveLength(2);
  });

  it('sends the page after a large one to a free worker rather than to wait behind it', async () => {
    const pool = poolOf({ threads: 2, tasksPerWorker: 4 });
    const done: string[] = [];
    await Promise.all(
      [htmlPage('https://huge.acme.test/', HUGE_PAGE), htmlPage('https://docs.acme.test/docs/pooling/', DOCS_PAGE)].map((page) =>
        pool.extractPage(page).then(() => done.push(page.url)),
      ),
    );
    expect(done).toEqual(['https://docs.acme.test/docs/pooling/', 'https://huge.acme.test/']);
  });

  it('counts a task’s time from when its worker starts it, not from when it was sent', async () => {
    const timeoutMs = 1_000;
    const pool = poolOf({ threads: 1, taskTimeoutMs: timeoutMs, tasksPerWorker: 4 });
    // Both go to the one worker at once; the slow one starts when the first is done.
    const first = pool.extractPage(htmlPage('https://first.acme.test/', MEDIUM_PAGE)).then(() => performance.now());
    const slow = pool.extractPage(htmlPage('https://slow.acme.test/', HUGE_PAGE)).then(
      () => undefined,
      (error: unknown) => ({ error, at: performance.now() }),
    );
    const firstDone = await first;
    const failure = await slow;
    expect((failure?.error as Error | undefined)?.message).toBe('Extracting the text of https://slow.acme.test/ took longer than 1 s and was stopped.');
    // Counted from when it was sent, it would have been stopped sooner after the first was done.
    expect((failure?.at ?? 0) - firstDone).toBeGreaterThanOrEqual(timeoutMs * 0.95);
  });

  it('fails a page that exhausts its worker’s memory, and extracts the next one', async () => {
    const pool = poolOf({ threads: 1, heapMb: 32 });
    const error = await pool.extractPage(htmlPage('https://huge.acme.test/', HUGE_PAGE)).then(() => undefined, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toMatch(/^Extracting the text of https:\/\/huge\.acme\.test\/ stopped its extraction worker: .*memory/);
    expect((await pool.extractPage(htmlPage('https://docs.acme.test/docs/pooling/', DOCS_PAGE))).title).toBe('Connection pooling');
  });
});

describe('ExtractionPool: workers come and go with the work', () => {
  it('starts no worker before there is something to extract', async () => {
    const workers = await watchWorkers(async () => {
      await new ExtractionPool({ threads: 2 }).close();
    });
    expect(workers).toHaveLength(0);
  });

  it('stops every worker on close, fails what was under way, and refuses new work', async () => {
    const pool = new ExtractionPool({ threads: 2 });
    let underWay: Promise<unknown> = Promise.resolve();
    const workers = await watchWorkers(async () => {
      await Promise.all([pool.extractPage(htmlPage('https://a.acme.test/', DOCS_PAGE)), pool.extractPage(htmlPage('https://b.acme.test/', BLOG_PAGE))]);
      underWay = pool.extractPage(htmlPage('https://slow.acme.test/', HUGE_PAGE)).then(() => undefined, (error: unknown) => error);
      await pool.close();
    });

    expect(workers).toHaveLength(2);
    expect(workers.map((worker) => worker.exited)).toEqual([true, true]);
    expect(await underWay).toMatchObject({ message: 'the engine is closing' });
    await expect(pool.extractPage(htmlPage('https://a.acme.test/', DOCS_PAGE))).rejects.toThrow('the engine is closing');
  });
});
