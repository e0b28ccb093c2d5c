import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractionPool } from '../../../src/engine/ingest/extract/extraction-pool.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';
import { WebPageReader, normalizeUrl } from '../../../src/engine/ingest/sources/web.js';
import { FetchFailure, HttpFetcher } from '../../../src/net/http-fetcher.js';
import { DOCS_PAGE } from '../../support/pages.js';
import { redirect, respond, startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';

let site: LoopbackServer;
let fetcher: HttpFetcher;
let extraction: ExtractionPool;
let reader: WebPageReader;

beforeAll(async () => {
  site = await startLoopbackServer({
    '/docs/pooling': respond(DOCS_PAGE),
    '/old-docs/pooling': redirect('/docs/pooling', 301),
    // "Café – “Menü”" in windows-1252, announced by the header only.
    '/latin': respond(
      Buffer.concat([
        Buffer.from('<html><head><title>Caf'),
        Buffer.from([0xe9, 0x20, 0x96, 0x20, 0x93]),
        Buffer.from('Men'),
        Buffer.from([0xfc, 0x94]),
        Buffer.from('</title></head><body><main><p>Unsere Speisekarte f'),
        Buffer.from([0xfc]),
        Buffer.from('r heute.</p></main></body></html>'),
      ]),
      { 'content-type': 'text/html; charset=windows-1252' },
    ),
    // "日本語のページ" in Shift_JIS, announced by <meta charset> only.
    '/japanese': respond(
      Buffer.concat([
        Buffer.from('<html><head><meta charset="shift_jis"><title>'),
        Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x79, 0x81, 0x5b, 0x83, 0x57]),
        Buffer.from('</title></head><body><main><p>'),
        Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]),
        Buffer.from('</p></main></body></html>'),
      ]),
      { 'content-type': 'text/html' },
    ),
    '/bom': respond(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<html><head><title>Grüße</title></head><body><main><p>Schöne Grüße</p></main></body></html>')]), {
      'content-type': 'text/html',
    }),
    '/notes/release%20notes.txt': respond('Version 2 adds pooling.\nVersion 1 was the first.', { 'content-type': 'text/plain; charset=utf-8' }),
    '/README.md': respond('Intro line\n\n# Acme client\n\nInstall it with npm.\n', { 'content-type': 'text/markdown' }),
    '/untyped': (_request, response) => {
      response.removeHeader('content-type');
      response.end('<!DOCTYPE html><html><head><title>Untyped</title></head><body><main><p>Served without a type.</p></main></body></html>');
    },
    '/manual.pdf': respond('%PDF-1.7 not really', { 'content-type': 'application/pdf' }),
    '/empty': respond('<html><head><title>Empty</title></head><body><nav>Home</nav><main></main></body></html>'),
    '/blank.txt': respond('   \n  ', { 'content-type': 'text/plain' }),
  });
  fetcher = new HttpFetcher({ allowPrivateNetwork: true });
  extraction = new ExtractionPool({ threads: 1 });
  reader = new WebPageReader(fetcher, extraction);
});

afterAll(async () => {
  await extraction.close();
  await fetcher.close();
  await site.close();
});

/** The error a read rejects with. */
async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected the read to fail'),
    (error: unknown) => error,
  );
}

describe('WebPageReader', () => {
  it('reads the content of a real-world page as Markdown, without its chrome', async () => {
    const document = await reader.read(site.url('/docs/pooling'));
    expect(document.title).toBe('Connection pooling');
    expect(document.url).toBe(site.url('/docs/pooling'));
    expect(document.markdown).toContain('## Configuring the pool');
    expect(document.markdown).toContain('```typescript\nconst pool = new Pool({ max: 10 });');
    expect(document.markdown).toContain('| `idleTimeout` | 30 s | How long an idle connection stays open |');
    expect(document.markdown).not.toContain('CHROME');
    expect(site.requests.at(-1)?.headers.accept).toMatch(/^text\/html,/);
  });

  it('reports the final URL after redirects', async () => {
    const document = await reader.read(site.url('/old-docs/pooling'));
    expect(document.url).toBe(site.url('/docs/pooling'));
    expect(document.title).toBe('Connection pooling');
  });

  it('decodes a windows-1252 page announced by its header', async () => {
    const document = await reader.read(site.url('/latin'));
    expect(document.title).toBe('Café – “Menü”');
    expect(document.markdown).toBe('Unsere Speisekarte für heute.');
  });

  it('decodes a Shift_JIS page announced by <meta charset>', async () => {
    const document = await reader.read(site.url('/japanese'));
    expect(document.title).toBe('日本語のページ');
    expect(document.markdown).toBe('日本語');
  });

  it('decodes a page with a UTF-8 byte order mark', async () => {
    const document = await reader.read(site.url('/bom'));
    expect(document.title).toBe('Grüße');
    expect(document.markdown).toBe('Schöne Grüße');
  });

  it('takes plain text as it is, titled by its file name', async () => {
    const document = await reader.read(site.url('/notes/release%20notes.txt'));
    expect(document).toEqual({
      title: 'release notes.txt',
      markdown: 'Version 2 adds pooling.\nVersion 1 was the first.',
      url: site.url('/notes/release%20notes.txt'),
    });
  });

  it('takes Markdown as it is, titled by its first heading', async () => {
    const document = await reader.read(site.url('/README.md'));
    expect(document.title).toBe('Acme client');
    expect(document.markdown).toBe('Intro line\n\n# Acme client\n\nInstall it with npm.');
  });

  it('reads HTML served without a Content-Type', async () => {
    const document = await reader.read(site.url('/untyped'));
    expect(document.title).toBe('Untyped');
    expect(document.markdown).toBe('Served without a type.');
  });

  it('refuses other content types, naming the type, for good', async () => {
    const error = await errorOf(reader.read(site.url('/manual.pdf')));
    expect(error).toBeInstanceOf(FetchFailure);
    expect(error).toMatchObject({ kind: 'unsupported_content', retryable: false, url: site.url('/manual.pdf') });
    expect((error as FetchFailure).message).toContain('is application/pdf');
    expect((error as FetchFailure).message).toContain('guru-mcp upload');
  });

  it('fails a page without text with a SourceError', async () => {
    for (const path of ['/empty', '/blank.txt']) {
      const error = await errorOf(reader.read(site.url(path)));
      expect(error).toBeInstanceOf(SourceError);
      expect(error).toMatchObject({ retryable: false });
      expect((error as SourceError).message).toBe(
        `${site.url(path)} has no text to index; if the page builds its content with JavaScript, add a URL that serves the text itself`,
      );
    }
  });

  it('passes HTTP failures through', async () => {
    const error = await errorOf(reader.read(site.url('/missing')));
    expect(error).toBeInstanceOf(FetchFailure);
    expect(error).toMatchObject({ kind: 'http_status', status: 404, retryable: false });
  });

  it('refuses loopback pages when private networks are not allowed', async () => {
    const guarded = new HttpFetcher({ allowPrivateNetwork: false });
    try {
      const error = await errorOf(new WebPageReader(guarded, extraction).read(site.url('/docs/pooling')));
      expect(error).toMatchObject({ kind: 'blocked_address', retryable: false });
    } finally {
      await guarded.close();
    }
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(reader.read(site.url('/docs/pooling'), controller.signal)).rejects.toThrow('cancelled');
  });
});

describe('normalizeUrl', () => {
  it.each([
    ['HTTPS://Docs.Example.COM/Guide/', 'https://docs.example.com/Guide/'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['https://example.com:8443/a/', 'https://example.com:8443/a/'],
    ['https://example.com/a#section-2', 'https://example.com/a'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/', 'https://example.com/'],
    ['https://example.com/#top', 'https://example.com/'],
    ['https://example.com/a/b//', 'https://example.com/a/b//'],
    ['https://example.com/search/?q=2&a=1', 'https://example.com/search/?q=2&a=1'],
    ['https://example.com/search?b=1&a=2#x', 'https://example.com/search?b=1&a=2'],
    ['https://example.com/page?', 'https://example.com/page'],
    ['  https://example.com/padded  ', 'https://example.com/padded'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  it('gives one form to URLs of the same page', () => {
    expect(normalizeUrl('HTTP://Example.com:80/docs/#intro')).toBe(normalizeUrl('http://example.com/docs/'));
    // A trailing slash may make another resource (or a 404): the path is kept as given.
    expect(normalizeUrl('http://example.com/docs/')).not.toBe(normalizeUrl('http://example.com/docs'));
  });

  it.each(['not a url', 'ftp://example.com/file', 'mailto:someone@example.com', 'file:///etc/passwd', '/relative/path', ''])('refuses %j', (input) => {
    expect(() => normalizeUrl(input)).toThrow(SourceError);
    expect(() => normalizeUrl(input)).toThrow(`${input} is not a valid http(s) URL`);
  });
});
