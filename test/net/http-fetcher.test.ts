import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FetchFailure, HttpFetcher, type FetchPolicy } from '../../src/net/http-fetcher.js';
import { redirect, respond, startLoopbackServer, type LoopbackServer, type Route } from '../support/loopback-server.js';

const servers: LoopbackServer[] = [];
const fetchers: HttpFetcher[] = [];

afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((fetcher) => fetcher.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(routes: Record<string, Route>): Promise<LoopbackServer> {
  const server = await startLoopbackServer(routes);
  servers.push(server);
  return server;
}

function fetcher(policy: Partial<FetchPolicy> = {}): HttpFetcher {
  const created = new HttpFetcher({ allowPrivateNetwork: true, ...policy });
  fetchers.push(created);
  return created;
}

/** The FetchFailure a fetch rejects with. */
async function failureOf(promise: Promise<unknown>): Promise<FetchFailure> {
  const error: unknown = await promise.then(
    () => new Error('expected the fetch to fail'),
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof FetchFailure)) throw error;
  return error;
}

describe('HttpFetcher: responses', () => {
  it('answers the body, the final URL, the bare lower-case MIME type and the headers, sending its User-Agent and Accept', async () => {
    const site = await serve({ '/page': respond('<p>Hello</p>', { 'content-type': 'Text/HTML; Charset=UTF-8', 'x-extra': 'yes' }) });
    const response = await fetcher().get(site.url('/page?a=1#section'), { accept: 'text/html', headers: { 'X-Token': 'abc' } });
    expect(response.status).toBe(200);
    expect(response.url).toBe(site.url('/page?a=1'));
    expect(response.mimeType).toBe('text/html');
    expect(response.headers['x-extra']).toBe('yes');
    expect(response.text()).toBe('<p>Hello</p>');
    expect(response.body.equals(Buffer.from('<p>Hello</p>'))).toBe(true);
    const [request] = site.requests;
    expect(request?.path).toBe('/page?a=1');
    expect(request?.headers['user-agent']).toMatch(/^guru-mcp\/\d+\.\d+\.\d+/);
    expect(request?.headers.accept).toBe('text/html');
    expect(request?.headers['x-token']).toBe('abc');
  });

  it("reports '' as the MIME type when the server sends none", async () => {
    const site = await serve({
      '/': (_request, response) => {
        response.removeHeader('content-type');
        response.end('plain');
      },
    });
    const response = await fetcher().get(site.url('/'));
    expect(response.mimeType).toBe('');
    expect(response.text()).toBe('plain');
  });

  it('parses JSON bodies, and calls a body that is not JSON a bad response', async () => {
    const site = await serve({
      '/ok': respond('{"issues":[1,2]}', { 'content-type': 'application/json' }),
      '/html': respond('<html>login</html>'),
    });
    expect((await fetcher().get(site.url('/ok'))).json()).toEqual({ issues: [1, 2] });
    const response = await fetcher().get(site.url('/html'));
    let failure: unknown;
    try {
      response.json();
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(FetchFailure);
    expect(failure).toMatchObject({ kind: 'bad_response', retryable: false, url: site.url('/html') });
  });

  it('decodes gzip and brotli bodies', async () => {
    const page = '<p>compressed café</p>'.repeat(50);
    const { brotliCompressSync } = await import('node:zlib');
    const site = await serve({
      '/gzip': respond(gzipSync(page), { 'content-encoding': 'gzip' }),
      '/br': respond(brotliCompressSync(page), { 'content-encoding': 'br' }),
    });
    expect((await fetcher().get(site.url('/gzip'))).text()).toBe(page);
    expect((await fetcher().get(site.url('/br'))).text()).toBe(page);
    expect(site.requests[0]?.headers['accept-encoding']).toBe('gzip, br');
  });

  it('refuses a response of a type the caller does not take, without reading its body', async () => {
    const site = await serve({
      '/': (_request, response) => {
        // A body that never ends: reading it would wait for the body timeout.
        response.writeHead(200, { 'content-type': 'Application/PDF' });
        response.write('%PDF-1.7');
      },
    });
    const failure = await failureOf(fetcher({ bodyTimeoutMs: 25_000 }).get(site.url('/'), { mimeTypes: ['text/html', 'text/plain', ''] }));
    expect(failure).toMatchObject({ kind: 'unsupported_content', retryable: false, url: site.url('/') });
    expect(failure.message).toBe(`${site.url('/')} is application/pdf; only text/html, text/plain can be read from here`);
  });

  it('calls a body that does not match its Content-Encoding a bad response', async () => {
    const site = await serve({ '/': respond('not gzip at all', { 'content-encoding': 'gzip' }) });
    expect(await failureOf(fetcher().get(site.url('/')))).toMatchObject({ kind: 'bad_response', retryable: false });
  });
});

describe('HttpFetcher: charsets', () => {
  it('decodes by the header charset (windows-1252)', async () => {
    // "café – “quoted”" in windows-1252: é E9, en dash 96, curly quotes 93/94.
    const body = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x93, 0x71, 0x75, 0x6f, 0x74, 0x65, 0x64, 0x94]);
    const site = await serve({ '/': respond(body, { 'content-type': 'text/html; charset=windows-1252' }) });
    expect((await fetcher().get(site.url('/'))).text()).toBe('café – “quoted”');
  });

  it('decodes by <meta charset> when the header names none (Shift_JIS)', async () => {
    const head = Buffer.from('<html><head><meta charset="Shift_JIS"><title>');
    // 日本語 in Shift_JIS.
    const title = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]);
    const site = await serve({
      '/': respond(Buffer.concat([head, title, Buffer.from('</title></head></html>')]), { 'content-type': 'text/html' }),
    });
    expect((await fetcher().get(site.url('/'))).text()).toContain('<title>日本語</title>');
  });

  it('decodes by <meta http-equiv="Content-Type"> too', async () => {
    const body = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>na'),
      Buffer.from([0xef, 0x76, 0x65]),
    ]);
    const site = await serve({ '/': respond(body, { 'content-type': 'text/html' }) });
    expect((await fetcher().get(site.url('/'))).text()).toContain('<p>naïve');
  });

  it('honours a UTF-8 byte order mark, over a header charset too, and drops it', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>Grüße</p>')]);
    const site = await serve({
      '/plain': respond(body, { 'content-type': 'text/html' }),
      '/latin': respond(body, { 'content-type': 'text/html; charset=iso-8859-1' }),
    });
    expect((await fetcher().get(site.url('/plain'))).text()).toBe('<p>Grüße</p>');
    expect((await fetcher().get(site.url('/latin'))).text()).toBe('<p>Grüße</p>');
  });

  it('falls back to UTF-8 for an unknown charset label, without throwing', async () => {
    const site = await serve({
      '/header': respond('<p>Grüße</p>', { 'content-type': 'text/html; charset=klingon' }),
      '/meta': respond('<meta charset="x-nonsense"><p>Grüße</p>', { 'content-type': 'text/html' }),
    });
    expect((await fetcher().get(site.url('/header'))).text()).toBe('<p>Grüße</p>');
    expect((await fetcher().get(site.url('/meta'))).text()).toContain('<p>Grüße</p>');
  });

  it('ignores <meta charset> in bodies that are not HTML', async () => {
    const site = await serve({ '/': respond('<meta charset="windows-1252"> Grüße', { 'content-type': 'text/plain' }) });
    expect((await fetcher().get(site.url('/'))).text()).toBe('<meta charset="windows-1252"> Grüße');
  });
});

describe('HttpFetcher: redirects', () => {
  it.each([301, 302, 303, 307, 308])('follows a %i with a relative Location and reports the final URL', async (status) => {
    const site = await serve({
      '/old/page': redirect('../new/page?x=1', status),
      '/new/page': respond('<p>moved</p>'),
    });
    const response = await fetcher().get(site.url('/old/page'));
    expect(response.url).toBe(site.url('/new/page?x=1'));
    expect(response.text()).toBe('<p>moved</p>');
  });

  it('follows up to maxRedirects hops and refuses one more', async () => {
    const routes: Record<string, Route> = { '/6': respond('<p>end</p>') };
    for (let hop = 0; hop < 6; hop += 1) routes[`/${hop}`] = redirect(`/${hop + 1}`, 301);
    const site = await serve(routes);
    expect((await fetcher({ maxRedirects: 6 }).get(site.url('/0'))).url).toBe(site.url('/6'));
    const failure = await failureOf(fetcher({ maxRedirects: 5 }).get(site.url('/0')));
    expect(failure).toMatchObject({ kind: 'too_many_redirects', retryable: false });
    expect(failure.message).toContain('more than 5 times');
  });

  it('refuses a redirect to a refused address, without connecting to it', async () => {
    const target = await serve({ '/': respond('<p>internal</p>') });
    const site = await serve({
      '/to-literal': redirect(`http://[::ffff:127.0.0.1]:${target.port}/`),
      '/to-name': redirect(`http://localhost:${target.port}/`),
    });
    // The site itself is trusted by name; where it redirects to is checked like any URL.
    const guarded = fetcher({ allowPrivateNetwork: false, trustedHosts: ['127.0.0.1'] });
    const literal = await failureOf(guarded.get(site.url('/to-literal')));
    expect(literal).toMatchObject({ kind: 'blocked_address', retryable: false });
    expect(literal.message).toContain('is a loopback address; set GURU_ALLOW_PRIVATE_NETWORK=1');
    const named = await failureOf(guarded.get(site.url('/to-name')));
    expect(named).toMatchObject({ kind: 'blocked_address', retryable: false });
    expect(named.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(target.connections).toBe(0);
  });

  it('refuses a redirect to another scheme', async () => {
    const site = await serve({ '/': redirect('ftp://example.com/file') });
    const failure = await failureOf(fetcher().get(site.url('/')));
    expect(failure).toMatchObject({ kind: 'bad_url', retryable: false });
    expect(failure.message).toContain('is not an http(s) URL');
  });

  it('keeps credentials on the same origin and drops them on the way to another', async () => {
    const other = await serve({ '/': respond('<p>elsewhere</p>') });
    const site = await serve({ '/a': redirect('/b'), '/b': redirect(other.url('/')) });
    await fetcher().get(site.url('/a'), { headers: { Authorization: 'Bearer secret', 'X-Kept': 'yes' } });
    expect(site.requests.map((request) => request.headers.authorization)).toEqual(['Bearer secret', 'Bearer secret']);
    expect(other.requests[0]?.headers.authorization).toBeUndefined();
    expect(other.requests[0]?.headers['x-kept']).toBe('yes');
  });
});

describe('HttpFetcher: statuses', () => {
  it('fails a 404 for good', async () => {
    const site = await serve({});
    const failure = await failureOf(fetcher().get(site.url('/missing')));
    expect(failure).toMatchObject({ kind: 'http_status', status: 404, retryable: false, url: site.url('/missing') });
    expect(failure.message).toBe(`${site.url('/missing')} answered 404 Not Found`);
  });

  it("keeps the start of a refused response's body, decoded, for APIs that explain refusals there", async () => {
    const explanation = JSON.stringify({ error: { code: 403, message: 'quota', errors: [{ reason: 'quotaExceeded' }] } });
    const site = await serve({
      '/plain': respond(explanation, { 'content-type': 'application/json' }, 403),
      '/gzip': respond(gzipSync(explanation), { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 403),
      '/long': respond('x'.repeat(100_000), {}, 500),
    });
    expect((await failureOf(fetcher().get(site.url('/plain')))).body).toBe(explanation);
    expect((await failureOf(fetcher().get(site.url('/gzip')))).body).toBe(explanation);
    expect((await failureOf(fetcher().get(site.url('/long')))).body).toBe('x'.repeat(16 * 1024));
  });

  it('fails a 500 as retryable', async () => {
    const site = await serve({ '/': respond('oops', {}, 500) });
    const failure = await failureOf(fetcher().get(site.url('/')));
    expect(failure).toMatchObject({ kind: 'http_status', status: 500, retryable: true });
    expect(failure.retryAfterMs).toBeUndefined();
    expect(failure.message).toBe(`${site.url('/')} answered 500 Internal Server Error; try again later`);
  });

  it('fails a 429 as retryable after the seconds of Retry-After', async () => {
    const site = await serve({ '/': respond('slow down', { 'retry-after': '7' }, 429) });
    const failure = await failureOf(fetcher().get(site.url('/')));
    expect(failure).toMatchObject({ kind: 'http_status', status: 429, retryable: true, retryAfterMs: 7000 });
    expect(failure.message).toContain('answered 429 Too Many Requests; try again in 7 s');
  });

  it('reads a Retry-After date on a 503', async () => {
    const at = new Date(Date.now() + 120_000).toUTCString();
    const site = await serve({ '/': respond('maintenance', { 'retry-after': at }, 503) });
    const failure = await failureOf(fetcher().get(site.url('/')));
    expect(failure).toMatchObject({ kind: 'http_status', status: 503, retryable: true });
    expect(failure.retryAfterMs).toBeGreaterThan(60_000);
    expect(failure.retryAfterMs).toBeLessThanOrEqual(120_000);
  });

  it('calls a refused connection a retryable network failure', async () => {
    const site = await serve({});
    const url = site.url('/');
    await site.close();
    servers.length = 0;
    const failure = await failureOf(fetcher().get(url));
    expect(failure).toMatchObject({ kind: 'network', retryable: true });
    expect(failure.message).toContain('refused the connection');
  });
});

describe('HttpFetcher: timeouts and sizes', () => {
  it('times out waiting for headers', async () => {
    const site = await serve({ '/': () => {} });
    const failure = await failureOf(fetcher({ headersTimeoutMs: 200 }).get(site.url('/')));
    expect(failure).toMatchObject({ kind: 'timeout', retryable: true });
    expect(failure.message).toContain('did not answer within 0.2 s');
  });

  it('times out on a body that stops arriving', async () => {
    const site = await serve({
      '/': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.write('<p>first part');
      },
    });
    const failure = await failureOf(fetcher({ bodyTimeoutMs: 200 }).get(site.url('/')));
    expect(failure).toMatchObject({ kind: 'timeout', retryable: true });
    expect(failure.message).toContain('did not send its whole response within 0.2 s');
  });

  it('times out on a body that trickles in for longer than the body timeout', async () => {
    const site = await serve({
      '/': (request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        const timer = setInterval(() => response.write('.'), 20);
        request.socket.on('close', () => clearInterval(timer));
      },
    });
    const failure = await failureOf(fetcher({ bodyTimeoutMs: 300 }).get(site.url('/')));
    expect(failure).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('refuses a body whose Content-Length is over the cap before reading it', async () => {
    const site = await serve({ '/': respond('x'.repeat(2048), { 'content-type': 'text/plain', 'content-length': '2048' }) });
    const failure = await failureOf(fetcher({ maxBytes: 1024 }).get(site.url('/')));
    expect(failure).toMatchObject({ kind: 'too_large', retryable: false });
    expect(failure.message).toBe(`${site.url('/')} declares more than the 1 KiB accepted for one response`);
  });

  it('aborts a streamed body once it passes the cap', async () => {
    const site = await serve({
      '/': (request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        // Chunked and endless: only the cap can end it.
        const timer = setInterval(() => response.write('y'.repeat(512)), 1);
        request.socket.on('close', () => clearInterval(timer));
      },
    });
    const failure = await failureOf(fetcher().get(site.url('/'), { maxBytes: 4096 }));
    expect(failure).toMatchObject({ kind: 'too_large', retryable: false });
    expect(failure.message).toContain('sends more than');
  });

  it('counts the cap after decompression', async () => {
    const site = await serve({ '/': respond(gzipSync(Buffer.alloc(1024 * 1024)), { 'content-encoding': 'gzip', 'content-type': 'text/plain' }) });
    expect(await failureOf(fetcher({ maxBytes: 64 * 1024 }).get(site.url('/')))).toMatchObject({ kind: 'too_large' });
  });

  it('rejects with the reason of an aborted signal', async () => {
    const site = await serve({ '/': () => {} });
    const controller = new AbortController();
    const pending = fetcher().get(site.url('/'), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stopped by the test')), 50);
    await expect(pending).rejects.toThrow('stopped by the test');
  });
});

describe('HttpFetcher: address policy', () => {
  it.each([
    ['127.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['127.0.0.1.', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[0:0:0:0:0:ffff:7f00:1]', 'loopback'],
    ['[64:ff9b::7f00:1]', 'loopback'],
    ['[2002:7f00:1::]', 'loopback'],
    ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['[fe80::1]', 'link-local'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.0.1', 'private'],
    ['[fc00::1]', 'private'],
    ['[fd12:3456::1]', 'private'],
    ['[::ffff:10.0.0.1]', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['[::]', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['[ff02::1]', 'multicast'],
  ])('refuses %s as %s, without any connection attempt', async (host, kind) => {
    const site = await serve({ '/': respond('<p>secret</p>') });
    const failure = await failureOf(fetcher({ allowPrivateNetwork: false }).get(`http://${host}:${site.port}/`));
    expect(failure).toMatchObject({ kind: 'blocked_address', retryable: false });
    expect(failure.message).toMatch(new RegExp(`is an? ${kind} address; set GURU_ALLOW_PRIVATE_NETWORK=1 to allow private and loopback addresses$`));
    expect(site.connections).toBe(0);
  });

  it('refuses a DNS name that resolves to loopback (localhost)', async () => {
    const site = await serve({ '/': respond('<p>secret</p>') });
    const failure = await failureOf(fetcher({ allowPrivateNetwork: false }).get(`http://localhost:${site.port}/`));
    expect(failure).toMatchObject({ kind: 'blocked_address', retryable: false });
    expect(failure.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address; set GURU_ALLOW_PRIVATE_NETWORK=1/);
    expect(site.connections).toBe(0);
  });

  it('reaches the same server when private networks are allowed', async () => {
    const site = await serve({ '/': respond('<p>fine</p>') });
    expect((await fetcher({ allowPrivateNetwork: true }).get(`http://localhost:${site.port}/`)).text()).toBe('<p>fine</p>');
    expect((await fetcher({ allowPrivateNetwork: true }).get(`http://127.1:${site.port}/`)).text()).toBe('<p>fine</p>');
  });

  it('allows public addresses through the policy check (no DNS needed to tell)', async () => {
    // 192.0.2.0/24 is documentation space: public as far as the policy goes, and unrouted here, so
    // the attempt ends in a network failure or timeout, never in a refusal.
    const failure = await failureOf(fetcher({ allowPrivateNetwork: false, connectTimeoutMs: 200 }).get('http://192.0.2.1:9/'));
    expect(['network', 'timeout']).toContain(failure.kind);
  });

  it.each([
    ['not a url', 'bad_url', 'is not a valid URL'],
    ['ftp://example.com/file', 'bad_url', 'is not an http(s) URL'],
    ['file:///etc/passwd', 'bad_url', 'is not an http(s) URL'],
  ])('refuses %s', async (url, kind, message) => {
    const failure = await failureOf(fetcher().get(url));
    expect(failure).toMatchObject({ kind, retryable: false });
    expect(failure.message).toContain(message);
  });
});
