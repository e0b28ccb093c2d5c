import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GuruError } from '../../../src/core/errors.js';
import { Crawl } from '../../../src/core/schemas.js';
import { INTERRUPTED_MESSAGE, LINK_LIMIT, type CrawlProgress } from '../../../src/engine/crawl/crawler.js';
import { CrawlRepository } from '../../../src/engine/crawl/repository.js';
import { openDatabase } from '../../../src/engine/store/database.js';
import { leaseOwner } from '../../../src/engine/store/jobs.js';
import { redirect, respond, startLoopbackServer, type LoopbackServer, type Route } from '../../support/loopback-server.js';
import { Hanging, Meter, openHarness, page, pages, type Harness } from './sites.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function harness(): Harness {
  const opened = openHarness();
  cleanups.push(() => opened.close());
  return opened;
}

async function serve(routes: Readonly<Record<string, Route>>): Promise<LoopbackServer> {
  const server = await startLoopbackServer(routes);
  cleanups.push(() => server.close());
  return server;
}

/** Paths the server was asked for, query included, in order. */
const requested = (site: LoopbackServer): string[] => site.requests.map((request) => request.path);

/** The paths (and queries) of discovered URLs, for comparing without the port. */
const paths = (crawl: Crawl): string[] => crawl.discovered_urls.map((url) => url.slice(new URL(url).origin.length));

async function errorOf(action: () => Promise<unknown>): Promise<GuruError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof GuruError) return error;
    throw error;
  }
  throw new Error('expected a GuruError');
}

/** `${count}` HTML pages under /s{i}/p{j}.html linked from / through section pages, plus the home page. */
function generatedSite(sections: number, perSection: number): Record<string, Route> {
  const site: Record<string, string[]> = { '/': Array.from({ length: sections }, (_, i) => `/s${i}/`) };
  for (let i = 0; i < sections; i += 1) {
    site[`/s${i}/`] = Array.from({ length: perSection }, (_, j) => `p${j}.html`);
    for (let j = 0; j < perSection; j += 1) site[`/s${i}/p${j}.html`] = ['../', `p${(j + 1) % perSection}.html`];
  }
  return pages(site);
}

describe('CrawlService: starting and reading crawls', () => {
  it('returns the crawl RUNNING with no URLs, then COMPLETED with the pages found and an end time', async () => {
    const h = harness();
    const site = await serve(pages({ '/': ['/a', '/b'], '/a': ['/b', '/'], '/b': [] }));
    const service = h.service();
    const started = await service.start(h.guruId, site.url('/'), true);
    expect(Crawl.parse(started)).toEqual(started);
    expect(started).toEqual({
      id: started.id,
      url: `${site.origin}/`,
      status: 'RUNNING',
      guru_type: 'docs',
      discovered_urls: [],
      start_time: expect.any(String),
      end_time: null,
      link_limit: LINK_LIMIT,
      ignore_query_params: true,
    });
    const done = await service.finished(started.id);
    expect(done.status).toBe('COMPLETED');
    expect(done.end_time).not.toBeNull();
    expect(done.error_message).toBeUndefined();
    expect(paths(done)[0]).toBe('/');
    expect(paths(done).sort()).toEqual(['/', '/a', '/b']);
    expect(await service.get(h.guruId, started.id)).toEqual(done);
  });

  it('stores the crawl under its canonical URL: lower-case scheme and host, no default port, no fragment', async () => {
    const h = harness();
    const site = await serve(pages({ '/Docs/': [] }));
    const service = h.service();
    const crawl = await service.start(h.guruId, `  HTTP://127.0.0.1:${site.port}/Docs/#intro `, false);
    expect(crawl.url).toBe(`http://127.0.0.1:${site.port}/Docs/`);
    expect(crawl.ignore_query_params).toBe(false);
    expect((await service.finished(crawl.id)).status).toBe('COMPLETED');
    expect((await service.start(h.otherGuruId, 'https://EXAMPLE.com:443/x?y=1#z', true)).url).toBe('https://example.com/x');
  });

  it.each(['ftp://x', 'not a url', '', '   ', 'http://', 'javascript:alert(1)', 'mailto:someone@example.com', '/relative/path'])(
    'refuses %j with "Invalid URL format"',
    async (url) => {
      const h = harness();
      const error = await errorOf(() => h.service().start(h.guruId, url, true));
      expect(error).toMatchObject({ message: 'Invalid URL format', status: 400, field: 'msg' });
      expect(h.db.prepare('SELECT count(*) AS n FROM crawls').get()).toEqual({ n: 0 });
    },
  );

  it('answers "Crawl not found" for unknown ids and for the crawls of another guru', async () => {
    const h = harness();
    const site = await serve(pages({ '/': [] }));
    const service = h.service();
    const crawl = await service.start(h.guruId, site.url('/'), true);
    await service.finished(crawl.id);
    for (const id of [crawl.id + 1, 0, -1, 1.5, Number.NaN]) {
      expect(await errorOf(() => service.get(h.guruId, id))).toMatchObject({ message: 'Crawl not found', status: 404 });
      expect(await errorOf(() => service.stop(h.guruId, id))).toMatchObject({ message: 'Crawl not found', status: 404 });
    }
    expect(await errorOf(() => service.get(h.otherGuruId, crawl.id))).toMatchObject({ message: 'Crawl not found' });
    expect(await errorOf(() => service.stop(h.otherGuruId, crawl.id))).toMatchObject({ message: 'Crawl not found' });
    await expect(service.finished(crawl.id + 1)).rejects.toMatchObject({ message: 'Crawl not found' });
  });

  it('refuses a second crawl of a guru while one runs, allows one of another guru, and allows it again once stopped', async () => {
    const h = harness();
    const hanging = new Hanging();
    const site = await serve({ ...pages({ '/': ['/slow'] }), '/slow': hanging.route() });
    const service = h.service();
    const first = await service.start(h.guruId, site.url('/'), true);
    const error = await errorOf(() => service.start(h.guruId, site.url('/other/'), true));
    expect(error).toMatchObject({
      status: 400,
      field: 'msg',
      message: 'A crawl is already running for this guru. Please wait for it to complete or stop it.',
    });
    const other = await service.start(h.otherGuruId, site.url('/'), true);
    expect(other.status).toBe('RUNNING');
    await service.stop(h.guruId, first.id);
    const again = await service.start(h.guruId, site.url('/'), true);
    expect(again.id).not.toBe(first.id);
    await service.stop(h.guruId, again.id);
    await service.stop(h.otherGuruId, other.id);
  });

  it('reports progress while crawling, ending with what was found', async () => {
    const h = harness();
    const site = await serve(generatedSite(5, 10));
    const service = h.service();
    const seen: CrawlProgress[] = [];
    const unsubscribe = service.onProgress((progress) => seen.push(progress));
    const crawl = await service.start(h.guruId, site.url('/'), true);
    const done = await service.finished(crawl.id);
    unsubscribe();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((progress) => progress.crawlId === crawl.id)).toBe(true);
    const discovered = seen.map((progress) => progress.discovered);
    expect(discovered).toEqual([...discovered].sort((a, b) => a - b));
    expect(seen.at(-1)).toEqual({ crawlId: crawl.id, discovered: 56, fetched: 56, queued: 0 });
    expect(done.discovered_urls).toHaveLength(56);
  });

  it('goes on while another connection holds the write lock, storing what it found once the lock is free', async () => {
    const h = harness();
    // A page that answers late: the crawl is still running while the lock is held.
    const late: Route = (request, response) => void setTimeout(() => respond('<a href="../">up</a>')(request, response), 600);
    const site = await serve({ ...generatedSite(2, 3), '/s1/p2.html': late });
    const service = h.service();
    const crawl = await service.start(h.guruId, site.url('/'), true);
    const writer = openDatabase(h.dir);
    writer.prepare('BEGIN IMMEDIATE').run();
    const lockedAt = Date.now();
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Ticks came and went without waiting for the lock (SQLite's busy wait would have held this thread 5 s).
      expect(Date.now() - lockedAt).toBeLessThan(2_000);
      expect(await service.get(h.guruId, crawl.id)).toMatchObject({ status: 'RUNNING', discovered_urls: [] });
      writer.prepare('COMMIT').run();
      const done = await service.finished(crawl.id);
      expect(done.discovered_urls).toHaveLength(9);
    } finally {
      if (writer.inTransaction) writer.prepare('ROLLBACK').run();
      writer.close();
    }
  });

  it('keeps what it found in the database: another service on the same data reads the same crawl', async () => {
    const h = harness();
    const site = await serve(generatedSite(2, 3));
    const first = h.service();
    const crawl = await first.start(h.guruId, site.url('/'), true);
    const done = await first.finished(crawl.id);
    await first.close();
    expect(await h.service().get(h.guruId, crawl.id)).toEqual(done);
    expect(await new CrawlRepository(h.sql).urls(crawl.id)).toEqual(done.discovered_urls);
  });
});

describe('CrawlService: which URLs a crawl visits', () => {
  it('crawls the whole site from its root, and only the sub-path from a sub-path', async () => {
    const h = harness();
    const elsewhere = await serve(pages({ '/': [] }));
    const site = await serve(
      pages({
        '/': ['/docs/', '/blog/post', '/docsearch', elsewhere.url('/')],
        '/docs/': ['intro', '/docs/guide/setup', '/', '/blog/post', '/docsearch'],
        '/docs/intro': ['guide/setup'],
        '/docs/guide/setup': ['../intro', '../../blog/post'],
        '/blog/post': ['/docs/'],
        '/docsearch': [],
      }),
    );
    const service = h.service();
    const whole = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(paths(whole).sort()).toEqual(['/', '/blog/post', '/docs/', '/docs/guide/setup', '/docs/intro', '/docsearch']);
    expect(elsewhere.requests).toHaveLength(0);

    const before = site.requests.length;
    const docs = await service.finished((await service.start(h.guruId, site.url('/docs/'), true)).id);
    expect(paths(docs).sort()).toEqual(['/docs/', '/docs/guide/setup', '/docs/intro']);
    const asked = requested(site).slice(before);
    expect(asked).not.toContain('/blog/post');
    expect(asked).not.toContain('/');
    expect(asked).not.toContain('/docsearch');
  });

  it('takes "begins with the start URL" literally: a start without a trailing slash also covers its siblings', async () => {
    const h = harness();
    const site = await serve(pages({ '/docs': ['/docs/a', '/docs-old', '/doc'], '/docs/a': [], '/docs-old': [], '/doc': [] }));
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/docs'), true)).id);
    expect(paths(crawl).sort()).toEqual(['/docs', '/docs-old', '/docs/a']);
  });

  it('drops query strings when ignore_query_params is true, and keeps each paginated page when false', async () => {
    const h = harness();
    const list: Route = (request, response) => {
      const pageNumber = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      const next = pageNumber < 3 ? [`/list?page=${pageNumber + 1}`, `?page=${pageNumber + 1}&sort=asc`] : [];
      respond(page(`List ${pageNumber}`, next))(request, response);
    };
    const site = await serve({ ...pages({ '/': ['/list?page=1', '/about?ref=home', '/about?'] }), '/list': list, '/about': respond(page('About')) });
    const service = h.service();

    const stripped = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(paths(stripped).sort()).toEqual(['/', '/about', '/list']);
    expect(requested(site).filter((path) => path.includes('?'))).toEqual([]);

    const kept = await service.finished((await service.start(h.guruId, site.url('/'), false)).id);
    expect(paths(kept).sort()).toEqual(
      ['/', '/about', '/about?ref=home', '/list?page=1', '/list?page=2', '/list?page=2&sort=asc', '/list?page=3', '/list?page=3&sort=asc'].sort(),
    );
  });

  it('drops fragments: links to parts of one page are that page, fetched once', async () => {
    const h = harness();
    const site = await serve(pages({ '/': ['/guide#install', '/guide#usage', 'guide#', '#top'], '/guide': ['#install', '/guide#x'] }));
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/#top'), true)).id);
    expect(crawl.discovered_urls).toEqual([site.url('/'), site.url('/guide')]);
    expect(requested(site).filter((path) => path === '/guide')).toHaveLength(1);
  });

  it('never visits the skipped paths or files that are not pages', async () => {
    const h = harness();
    const skipped = [
      '/feed/',
      '/blog/feed/',
      '/rss/latest',
      '/static/page.html',
      '/assets/intro',
      '/media/clip',
      '/wp-admin/options',
      '/wp-json/wp/v2/posts',
      '/_static/basic',
      '/_sources/index.rst.txt',
      '/logo.png',
      '/photo.JPG',
      '/manual.pdf',
      '/site.css',
      '/app.js',
      '/font.woff2',
      '/release.tar.gz',
      '/backup.zip',
      '/talk.mp4',
      '/podcast.mp3',
      '/data.json',
    ];
    const site = await serve(pages({ '/': [...skipped, '/guide.html', '/v1.2/notes'], '/guide.html': [], '/v1.2/notes': [] }));
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(paths(crawl).sort()).toEqual(['/', '/guide.html', '/v1.2/notes']);
    const asked = requested(site);
    for (const path of skipped) expect(asked).not.toContain(path);
  });

  it('crawls under a skipped directory when the start URL itself lies there', async () => {
    const h = harness();
    const site = await serve(pages({ '/assets/guide/': ['one', 'two', '/assets/guide/static/x'], '/assets/guide/one': [], '/assets/guide/two': [] }));
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/assets/guide/'), true)).id);
    expect(paths(crawl).sort()).toEqual(['/assets/guide/', '/assets/guide/one', '/assets/guide/two']);
    expect(requested(site)).not.toContain('/assets/guide/static/x');
  });

  it('counts only pages that answer HTML: not 404s, 500s, PDFs, images or text without an extension to tell', async () => {
    const h = harness();
    const site = await serve({
      ...pages({ '/': ['/missing', '/broken', '/download', '/picture', '/notes', '/untyped', '/fine'], '/fine': [] }),
      '/broken': respond('oops', { 'content-type': 'text/plain' }, 500),
      '/download': respond('%PDF-1.7', { 'content-type': 'application/pdf' }),
      '/picture': respond('GIF89a', { 'content-type': 'image/gif' }),
      '/notes': respond('Plain notes', { 'content-type': 'text/plain' }),
      '/untyped': (_request, response) => {
        response.removeHeader('content-type');
        response.end(page('Untyped', ['/from-untyped']));
      },
      '/from-untyped': respond(page('From untyped')),
    });
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(crawl.status).toBe('COMPLETED');
    expect(crawl.error_message).toBeUndefined();
    expect(paths(crawl).sort()).toEqual(['/', '/fine', '/from-untyped', '/untyped']);
    // A 500 may pass: tried once more, then given up.
    expect(requested(site).filter((path) => path === '/broken')).toHaveLength(2);
    expect(requested(site).filter((path) => path === '/missing')).toHaveLength(1);
  });

  it('reads links however the HTML writes them, but not from comments or scripts, and honours <base href>', async () => {
    const h = harness();
    const home = `<!DOCTYPE html><html><head><base href="/docs/"><title>Home</title>
      <script>const html = '<a href="/docs/from-script">x</a>';</script>
      <style>a[href="/docs/from-style"] { color: red }</style></head><body>
      <A HREF="upper">Upper</A> <a class='x' href='single'>Single</a> <a href=unquoted>Unquoted</a>
      <a title="a > b" href="after-gt">After</a> <a href="query?a=1&amp;b=2">Entity</a>
      <a
        href="multi-line">Multi</a> <area shape="rect" href="from-area"> <a data-href="/docs/data-attribute">Data</a>
      <!-- <a href="/docs/from-comment">old</a> -->
      <a href="mailto:docs@example.com">Mail</a> <a href="javascript:void(0)">JS</a> <a href="">Empty</a>
      </body></html>`;
    const linked = ['upper', 'single', 'unquoted', 'after-gt', 'query', 'multi-line', 'from-area'];
    const site = await serve({ '/': respond(home), ...pages(Object.fromEntries(linked.map((name) => [`/docs/${name}`, []]))) });
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(paths(crawl).sort()).toEqual(['/', ...linked.map((name) => `/docs/${name}`)].sort());
    const asked = requested(site);
    for (const path of ['/docs/from-script', '/docs/from-style', '/docs/from-comment', '/docs/data-attribute']) expect(asked).not.toContain(path);
  });
});

describe('CrawlService: redirects', () => {
  it('follows redirects inside the start URL, and not out of it (the target is never requested)', async () => {
    const h = harness();
    const elsewhere = await serve(pages({ '/': [] }));
    const site = await serve({
      ...pages({ '/docs/': ['old', 'away', 'abroad', 'twice', 'new'], '/docs/new': [], '/outside': [] }),
      '/docs/old': redirect('/docs/new', 301),
      '/docs/twice': redirect('/docs/old', 302),
      '/docs/away': redirect('/outside', 302),
      '/docs/abroad': redirect(elsewhere.url('/docs/'), 302),
    });
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/docs/'), true)).id);
    expect(crawl.status).toBe('COMPLETED');
    expect(paths(crawl)).toEqual(['/docs/', '/docs/new']);
    expect(requested(site)).not.toContain('/outside');
    expect(elsewhere.requests).toHaveLength(0);
    // The page reached through several redirects is fetched once as itself.
    expect(requested(site).filter((path) => path === '/docs/new').length).toBeLessThanOrEqual(3);
  });

  it('follows a redirect of the start URL inside it, and fails with the target when it leads out', async () => {
    const h = harness();
    const site = await serve({
      ...pages({ '/docs/': ['a'], '/docs/a': [], '/new/': [] }),
      '/docs': redirect('/docs/', 301),
      '/old/': redirect('/new/', 301),
    });
    const service = h.service();
    const inside = await service.finished((await service.start(h.guruId, site.url('/docs'), true)).id);
    expect(inside.status).toBe('COMPLETED');
    expect(paths(inside)).toEqual(['/docs/', '/docs/a']);

    const outside = await service.finished((await service.start(h.guruId, site.url('/old/'), true)).id);
    expect(outside.status).toBe('FAILED');
    expect(outside.error_message).toBe(
      `${site.url('/old/')} redirects to ${site.url('/new/')}, outside the URLs this crawl may visit; start the crawl from ${site.url('/new/')}`,
    );
    expect(outside.discovered_urls).toEqual([]);
    expect(requested(site)).not.toContain('/new/');
  });
});

describe('CrawlService: robots.txt and sitemaps', () => {
  it('keeps out of what robots.txt disallows for guru-mcp (its own group, not the others)', async () => {
    const h = harness();
    const robots = ['User-agent: *', 'Disallow: /', '', 'User-agent: guru-mcp', 'Disallow: /private/', 'Allow: /private/open', ''].join('\n');
    const site = await serve({
      '/robots.txt': respond(robots, { 'content-type': 'text/plain' }),
      ...pages({ '/': ['/public', '/private/secret', '/private/open'], '/public': ['/private/other'], '/private/open': [] }),
    });
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(paths(crawl).sort()).toEqual(['/', '/private/open', '/public']);
    expect(requested(site).filter((path) => path.startsWith('/private/') && path !== '/private/open')).toEqual([]);
    expect(requested(site)[0]).toBe('/robots.txt');
    expect(site.requests[0]?.headers['user-agent']).toMatch(/^guru-mcp\//);
  });

  it('fails a crawl whose start URL robots.txt disallows, or whose robots.txt answers with a server error', async () => {
    const h = harness();
    const closed = await serve({ '/robots.txt': respond('User-agent: *\nDisallow: /', { 'content-type': 'text/plain' }), ...pages({ '/': [] }) });
    const failing = await serve({ '/robots.txt': respond('down', { 'content-type': 'text/plain' }, 503), ...pages({ '/': [] }) });
    const service = h.service();
    const refused = await service.finished((await service.start(h.guruId, closed.url('/'), true)).id);
    expect(refused).toMatchObject({ status: 'FAILED', error_message: `The robots.txt of ${closed.origin} does not allow guru-mcp to fetch ${closed.url('/')}` });
    expect(requested(closed)).toEqual(['/robots.txt']);
    const unavailable = await service.finished((await service.start(h.guruId, failing.url('/'), true)).id);
    expect(unavailable.status).toBe('FAILED');
    expect(unavailable.error_message).toContain(`${failing.url('/robots.txt')} answered 503 Service Unavailable`);
    expect(requested(failing)).toEqual(['/robots.txt']);
  });

  it('waits the Crawl-delay between requests, one at a time', async () => {
    const h = harness();
    const meter = new Meter();
    const site = await serve({
      '/robots.txt': respond('User-agent: guru-mcp\nCrawl-delay: 0.2\n', { 'content-type': 'text/plain' }),
      ...Object.fromEntries(Object.entries(pages({ '/': ['/a', '/b', '/c', '/d'], '/a': [], '/b': [], '/c': [], '/d': [] })).map(([path, route]) => [path, meter.wrap(route)])),
    });
    const service = h.service({ perHost: 4 });
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(crawl.discovered_urls).toHaveLength(5);
    expect(meter.highest).toBe(1);
    const gaps = meter.arrivals.slice(1).map((at, index) => at - meter.arrivals[index]!);
    expect(gaps).toHaveLength(4);
    // A lower bound only: the crawler must not ask sooner than the site allows.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(190);
  });

  it('seeds the crawl from the sitemaps robots.txt names: an index of a urlset and a gzipped urlset', async () => {
    const h = harness();
    const index = `<?xml version="1.0" encoding="UTF-8"?>
      <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>ORIGIN/maps/docs.xml</loc></sitemap>
        <sitemap><loc><![CDATA[ORIGIN/maps/more.xml.gz]]></loc></sitemap>
      </sitemapindex>`;
    const urlset = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <url><loc>ORIGIN/docs/orphan</loc><lastmod>2024-01-01</lastmod></url>
        <url><loc> ORIGIN/docs/query?a=1&amp;b=2 </loc></url>
        <url><loc>ORIGIN/blog/not-under-docs</loc></url>
        <url><loc>ORIGIN/docs/logo.png</loc></url>
      </urlset>`;
    const gzipped = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>ORIGIN/docs/zipped</loc></url></urlset>`;
    let origin = '';
    const xml = (text: string, gzip = false): Route => (request, response) => {
      const body = text.replaceAll('ORIGIN', origin);
      respond(gzip ? gzipSync(body) : body, { 'content-type': gzip ? 'application/gzip' : 'application/xml' })(request, response);
    };
    const site = await serve({
      '/robots.txt': respond('User-agent: *\nDisallow:\n\nSitemap: /maps/index.xml\n', { 'content-type': 'text/plain' }),
      '/maps/index.xml': xml(index),
      '/maps/docs.xml': xml(urlset),
      '/maps/more.xml.gz': xml(gzipped, true),
      ...pages({ '/docs/': [], '/docs/orphan': [], '/docs/query': [], '/docs/zipped': [], '/blog/not-under-docs': [] }),
    });
    origin = site.origin;
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/docs/'), false)).id);
    expect(paths(crawl).sort()).toEqual(['/docs/', '/docs/orphan', '/docs/query?a=1&b=2', '/docs/zipped']);
    expect(requested(site)).toEqual(expect.arrayContaining(['/maps/index.xml', '/maps/docs.xml', '/maps/more.xml.gz']));
    expect(requested(site)).not.toContain('/blog/not-under-docs');
    expect(requested(site)).not.toContain('/docs/logo.png');
    expect(requested(site)).not.toContain('/sitemap.xml');
  });

  it('reads /sitemap.xml when robots.txt names no sitemap', async () => {
    const h = harness();
    let origin = '';
    const site = await serve({
      '/sitemap.xml': (request, response) =>
        respond(`<urlset><url><loc>${origin}/hidden</loc></url></urlset>`, { 'content-type': 'text/xml' })(request, response),
      ...pages({ '/': [], '/hidden': [] }),
    });
    origin = site.origin;
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(paths(crawl)).toEqual(['/', '/hidden']);
  });
});

describe('CrawlService: limits and failures', () => {
  it('fails a crawl whose start URL cannot be reached, or is not a page', async () => {
    const h = harness();
    const gone = await startLoopbackServer({});
    const url = gone.url('/docs/');
    await gone.close();
    const site = await serve({ '/manual.pdf': respond('%PDF-1.7', { 'content-type': 'application/pdf' }), '/docs/': respond('missing', {}, 404) });
    const service = h.service();
    const unreachable = await service.finished((await service.start(h.guruId, url, true)).id);
    expect(unreachable.status).toBe('FAILED');
    expect(unreachable.error_message).toMatch(/^Could not crawl http:\/\/127\.0\.0\.1:\d+\/docs\/: 127\.0\.0\.1:\d+ refused the connection/);
    expect(unreachable.end_time).not.toBeNull();

    const pdf = await service.finished((await service.start(h.guruId, site.url('/manual.pdf'), true)).id);
    expect(pdf).toMatchObject({ status: 'FAILED', discovered_urls: [] });
    expect(pdf.error_message).toContain('is application/pdf');
    const missing = await service.finished((await service.start(h.guruId, site.url('/docs/'), true)).id);
    expect(missing).toMatchObject({ status: 'FAILED', error_message: `Could not crawl ${site.url('/docs/')}: ${site.url('/docs/')} answered 404 Not Found` });
  });

  it('ends at the link limit with at most that many URLs, saying it was cut short', async () => {
    const h = harness();
    const site = await serve(generatedSite(4, 10));
    const service = h.service({ linkLimit: 10 });
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(crawl).toMatchObject({ status: 'COMPLETED', link_limit: 10 });
    expect(crawl.discovered_urls).toHaveLength(10);
    expect(new Set(crawl.discovered_urls).size).toBe(10);
    expect(crawl.error_message).toBe(
      `Stopped at the link limit of 10 URLs; ${site.url('/')} has more links that were not visited. Crawl a narrower sub-path to discover the rest.`,
    );
  });

  it('says nothing of the limit when the site has exactly that many pages', async () => {
    const h = harness();
    const site = await serve(generatedSite(1, 8));
    const service = h.service({ linkLimit: 10 });
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(crawl.discovered_urls).toHaveLength(10);
    expect(crawl.error_message).toBeUndefined();
  });

  it('stops a larger site at the real limit of 1500 URLs', async () => {
    const h = harness();
    const site = await serve(generatedSite(40, 40));
    const service = h.service();
    const crawl = await service.finished((await service.start(h.guruId, site.url('/'), true)).id);
    expect(crawl).toMatchObject({ status: 'COMPLETED', link_limit: 1500 });
    expect(crawl.discovered_urls).toHaveLength(1500);
    expect(new Set(crawl.discovered_urls).size).toBe(1500);
    expect(crawl.error_message).toMatch(/^Stopped at the link limit of 1500 URLs/);
    expect(crawl.discovered_urls.every((url) => url.startsWith(site.url('/')))).toBe(true);
  });
});

describe('CrawlService: stopping, shutting down, and processes that died', () => {
  /** A site whose home links to pages that never answer, and the crawl held on them. */
  async function heldCrawl(h: Harness, service = h.service()) {
    const hanging = new Hanging();
    const slow = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`/slow/${i}`, hanging.route()]));
    const site = await serve({ ...pages({ '/': Object.keys(slow) }), ...slow });
    const crawl = await service.start(h.guruId, site.url('/'), true);
    // Every request slot of the crawl (4 for one site) waits on a page that does not answer.
    await vi.waitFor(() => expect(hanging.held).toHaveLength(4), { timeout: 10_000, interval: 20 });
    return { site, hanging, crawl, service };
  }

  it('stops a running crawl: STOPPED with an end time, requests under way aborted, no further request', async () => {
    const h = harness();
    const { site, hanging, crawl, service } = await heldCrawl(h);
    const asked = site.requests.length;
    const stopped = await service.stop(h.guruId, crawl.id);
    expect(stopped).toMatchObject({ id: crawl.id, status: 'STOPPED', discovered_urls: [site.url('/')] });
    expect(stopped.end_time).not.toBeNull();
    expect(stopped.error_message).toBeUndefined();
    expect(await service.finished(crawl.id)).toEqual(stopped);
    await vi.waitFor(() => expect(hanging.aborted).toBe(4), { timeout: 10_000, interval: 20 });
    expect(site.requests).toHaveLength(asked);
    expect(await service.get(h.guruId, crawl.id)).toEqual(stopped);
    // Stopping an ended crawl changes nothing.
    expect(await service.stop(h.guruId, crawl.id)).toEqual(stopped);
  });

  it('stops a crawl another process runs: that one sees it and stops fetching', async () => {
    const h = harness();
    const running = h.service();
    const { site, hanging, crawl } = await heldCrawl(h, running);
    const elsewhere = h.service();
    // Another live process's crawl is left alone by status reads.
    expect((await elsewhere.get(h.guruId, crawl.id)).status).toBe('RUNNING');
    expect(await elsewhere.recover()).toBe(0);
    const asked = site.requests.length;
    expect((await elsewhere.stop(h.guruId, crawl.id)).status).toBe('STOPPED');
    const ended = await running.finished(crawl.id);
    expect(ended.status).toBe('STOPPED');
    await vi.waitFor(() => expect(hanging.aborted).toBe(4), { timeout: 10_000, interval: 20 });
    expect(site.requests).toHaveLength(asked);
  });

  it('ends its running crawls as FAILED (interrupted) when it closes', async () => {
    const h = harness();
    const { hanging, crawl, service } = await heldCrawl(h);
    await service.close();
    const after = await h.service().get(h.guruId, crawl.id);
    expect(after).toMatchObject({ status: 'FAILED', error_message: INTERRUPTED_MESSAGE });
    expect(after.end_time).not.toBeNull();
    await vi.waitFor(() => expect(hanging.aborted).toBe(4), { timeout: 10_000, interval: 20 });
  });

  it('marks FAILED a crawl left RUNNING by a process that died, on recover(), on a status read, and on a new start', async () => {
    const h = harness();
    const child = spawn(process.execPath, ['-e', '']);
    await once(child, 'exit');
    const { host } = leaseOwner('x');
    const dead = { id: `${host}/${child.pid}/x`, host, pid: child.pid! };
    const crawls = new CrawlRepository(h.sql);
    const left = (guruId: number, owner = dead, leaseExpiresAt = Date.now() + 60_000) =>
      crawls.create({ guruId, url: 'https://example.com/', ignoreQueryParams: true, linkLimit: 1500, startTime: new Date().toISOString(), owner, leaseExpiresAt });

    const first = (await left(h.guruId))!;
    await crawls.record(first.id, dead, 0, ['https://example.com/', 'https://example.com/a'], Date.now() + 60_000);
    const service = h.service();
    expect(await service.recover()).toBe(1);
    expect(await service.get(h.guruId, first.id)).toMatchObject({
      status: 'FAILED',
      error_message: INTERRUPTED_MESSAGE,
      discovered_urls: ['https://example.com/', 'https://example.com/a'],
    });

    const second = (await left(h.guruId))!;
    expect(await service.get(h.guruId, second.id)).toMatchObject({ status: 'FAILED', error_message: INTERRUPTED_MESSAGE });

    const third = (await left(h.guruId))!;
    const site = await serve(pages({ '/': [] }));
    const fresh = await service.start(h.guruId, site.url('/'), true);
    expect(await crawls.find(third.id)).toMatchObject({ status: 'FAILED', error_message: INTERRUPTED_MESSAGE });
    await service.finished(fresh.id);
  });

  it('tells a crawl of another machine by its lease: running while renewed, FAILED once it ran out', async () => {
    const h = harness();
    const remote = { id: 'another-machine/4242/y', host: 'another-machine', pid: 4242 };
    const crawls = new CrawlRepository(h.sql);
    const crawl = (await crawls.create({
      guruId: h.guruId,
      url: 'https://example.com/',
      ignoreQueryParams: true,
      linkLimit: 1500,
      startTime: new Date().toISOString(),
      owner: remote,
      leaseExpiresAt: Date.now() + 60_000,
    }))!;
    const service = h.service();
    expect(await service.recover()).toBe(0);
    expect((await service.get(h.guruId, crawl.id)).status).toBe('RUNNING');
    expect((await errorOf(() => service.start(h.guruId, 'https://example.com/', true))).message).toBe(
      'A crawl is already running for this guru. Please wait for it to complete or stop it.',
    );
    h.db.prepare('UPDATE crawls SET lease_expires_at = ? WHERE id = ?').run(Date.now() - 1, crawl.id);
    expect(await service.recover()).toBe(1);
    expect(await service.get(h.guruId, crawl.id)).toMatchObject({ status: 'FAILED', error_message: INTERRUPTED_MESSAGE });
  });
});
