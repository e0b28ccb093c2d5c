/**
 * The web interface without a browser: its headers, its operator routes' key
 * check, body caps and error bodies, the loopback operator's gurus, and the
 * session links REST gives when the interface is mounted.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveGuru, type ServedGuru } from '../support/serve.js';

let served: ServedGuru;

beforeAll(async () => {
  served = await serveGuru('frob');
});
afterAll(() => served?.close());

const call = (path: string, init: RequestInit = {}) => fetch(`${served.base}${path}`, init);
const withKey = (key: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...init.headers, 'x-api-key': key } });

describe('pages and files', () => {
  it('serves the page shell on every page path, with a strict policy', async () => {
    for (const path of ['/', '/sources', '/ask', '/sessions/abc', '/end-users', '/settings', '/gurus']) {
      const response = await call(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(await response.text()).toContain('<script type="module" src="/assets/app.js"></script>');
    }
  });

  it('serves its modules and marked as JavaScript, and nothing it does not have', async () => {
    const marked = await call('/assets/vendor/marked.js');
    expect(marked.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await marked.text()).toContain('export');
    expect((await call('/assets/pages/ask.js')).status).toBe(200);
    expect((await call('/assets/../package.json')).status).toBe(404);
    expect((await call('/nothing-here')).status).toBe(404);
    expect((await call('/sources', { method: 'POST' })).status).toBe(405);
  });

  it('keeps REST, MCP and the health check where they were', async () => {
    expect(await (await call('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await call('/api/v1/frob/data-sources/')).status).toBe(401);
  });
});

describe('operator routes', () => {
  it('say who a key belongs to, and refuse a missing or wrong key with the REST message', async () => {
    const me = await call('/web/api/me', withKey(served.apiKey));
    expect(await me.json()).toEqual({ guru_slug: 'frob', name: 'Frobnicator', local_operator: true });
    for (const init of [{}, withKey('not-a-key')]) {
      const refused = await call('/web/api/me', init);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ msg: 'Invalid API key' });
    }
  });

  it('refuse a document larger than the upload cap while it is read', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL('/web/api/documents?name=big.pdf', served.base);
      const req = httpRequest(url, { method: 'POST', headers: { 'x-api-key': served.apiKey, 'content-length': String(51 * 1024 * 1024) } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024));
    });
    expect(status).toBe(413);
    expect(JSON.parse(body)).toEqual({ msg: 'Request body too large (limit 50 MiB)' });
  });

  it('take a document, and say why one of another kind is refused', async () => {
    const notes = await call('/web/api/documents?name=notes.odt', withKey(served.apiKey, { method: 'POST', body: 'hello' }));
    expect(notes.status).toBe(200);
    const refused = (await notes.json()) as { status: string; error: string };
    expect(refused.status).toBe('refused');
    expect(refused.error).toMatch(/notes\.odt/);
    const nameless = await call('/web/api/documents', withKey(served.apiKey, { method: 'POST', body: 'hello' }));
    expect(nameless.status).toBe(400);
    expect(await nameless.json()).toEqual({ msg: 'Invalid request parameters: the file name is missing (query parameter name)' });
    const longName = await call(`/web/api/documents?name=${'n'.repeat(501)}.pdf`, withKey(served.apiKey, { method: 'POST', body: 'hello' }));
    expect(longName.status).toBe(400);
    expect(await longName.json()).toEqual({ msg: 'Invalid request parameters: the file name must be at most 500 characters' });
  });

  it('set, list and remove integrations, never showing the token again', async () => {
    const bad = await call('/web/api/integrations', withKey(served.apiKey, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kind":' }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ msg: 'Invalid request parameters: Invalid JSON body' });
    const body = JSON.stringify({ kind: 'jira', base_url: 'https://example.atlassian.net', token: 'secret-token' });
    const set = await call('/web/api/integrations', withKey(served.apiKey, { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
    expect(set.status).toBe(200);
    const listed = await (await call('/web/api/integrations', withKey(served.apiKey))).text();
    expect(listed).toContain('https://example.atlassian.net');
    expect(listed).not.toContain('secret-token');
    const removed = await call('/web/api/integrations/jira', withKey(served.apiKey, { method: 'DELETE' }));
    expect(await removed.json()).toEqual({ removed: true });
    const unknown = await call('/web/api/integrations/slack', withKey(served.apiKey, { method: 'DELETE' }));
    expect(unknown.status).toBe(400);
  });

  it('let the loopback operator list and create gurus, but not a page of another site', async () => {
    const created = await call('/web/api/gurus', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'other' }) });
    expect(created.status).toBe(200);
    const { api_key: key } = (await created.json()) as { api_key: string };
    expect(await (await call('/web/api/me', withKey(key))).json()).toMatchObject({ guru_slug: 'other' });
    const gurus = (await (await call('/web/api/gurus')).json()) as { slug: string }[];
    expect(gurus.map(({ slug }) => slug).sort()).toEqual(['frob', 'other']);
    const foreign = await call('/web/api/gurus', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify({ slug: 'evil' }),
    });
    expect(foreign.status).toBe(403);
  });

  it('let no other page on this machine, and nothing a proxy passed on, list or create gurus without a key', async () => {
    const otherPort = await call('/web/api/gurus', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'http://127.0.0.1:5173' },
      body: JSON.stringify({ slug: 'sneaky' }),
    });
    expect(otherPort.status).toBe(403);
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const proxied = await call('/web/api/gurus', { headers: { [header]: '203.0.113.7' } });
      expect(proxied.status, header).toBe(403);
      const created = await call('/web/api/gurus', { method: 'POST', headers: { 'content-type': 'application/json', [header]: '203.0.113.7' }, body: JSON.stringify({ slug: 'proxied' }) });
      expect(created.status, header).toBe(403);
    }
    const gurus = (await (await call('/web/api/gurus')).json()) as { slug: string }[];
    expect(gurus.map(({ slug }) => slug)).not.toContain('sneaky');
    expect(gurus.map(({ slug }) => slug)).not.toContain('proxied');
  });
});

describe('deleting a guru', () => {
  it('is for the loopback operator: not for a page of another site, nor through a proxy; a bad or unknown slug is refused', async () => {
    const created = await call('/web/api/gurus', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'doomed' }) });
    const { api_key: key } = (await created.json()) as { api_key: string };
    const foreign = await call('/web/api/gurus/doomed', { method: 'DELETE', headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const proxied = await call('/web/api/gurus/doomed', { method: 'DELETE', headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(proxied.status).toBe(403);
    expect((await call('/web/api/me', withKey(key))).status).toBe(200);

    const bad = await call(`/web/api/gurus/${'A'.repeat(300)}`, { method: 'DELETE' });
    expect(bad.status).toBe(400);
    const unknown = await call('/web/api/gurus/no-such-guru', { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ msg: 'Guru type no-such-guru not found' });

    const deleted = await call('/web/api/gurus/doomed', { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ slug: 'doomed', deleted: { data_sources: 0, sessions: 0, questions: 0, crawls: 0, api_keys: 1 } });
    const refused = await call('/web/api/me', withKey(key));
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ msg: 'Invalid API key' });
  });
});

describe('with GURU_MCP_REQUIRE_KEY=1', () => {
  let locked: ServedGuru;
  beforeAll(async () => {
    locked = await serveGuru('frob', { GURU_MCP_REQUIRE_KEY: '1' });
  });
  afterAll(() => locked?.close());

  it('lists and creates no gurus without a key, even on loopback', async () => {
    expect((await fetch(`${locked.base}/web/api/gurus`)).status).not.toBe(200);
    const created = await fetch(`${locked.base}/web/api/gurus`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'other' }) });
    expect(created.status).not.toBe(200);
    const me = (await (await fetch(`${locked.base}/web/api/me`, { headers: { 'x-api-key': locked.apiKey } })).json()) as { local_operator: boolean };
    expect(me.local_operator).toBe(false);
  });
});

describe('settings', () => {
  it("read and change the guru's settings, refusing what the schema does not take", async () => {
    const read = async () => (await call('/web/api/settings', withKey(served.apiKey))).json();
    expect(await read()).toMatchObject({ model_instructions: '', speech_provider: false, attachment_limits: { images: { count: 5, max_bytes: 5_000_000 } } });
    const post = (body: object) => call('/web/api/settings', withKey(served.apiKey, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    const changed = await post({ model_instructions: 'Be brief.', attachment_limits: { images: { count: 2 } } });
    expect(changed.status).toBe(200);
    expect(await read()).toMatchObject({ model_instructions: 'Be brief.', attachment_limits: { images: { count: 2, max_bytes: 5_000_000 } } });
    const refused = await post({ model_instructions: 'x'.repeat(4001) });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { msg: string }).msg).toMatch(/^Invalid request parameters: /);
    expect((await call('/web/api/settings')).status).toBe(401);
  });

  it("refuse a key holder's attachment limits over the operator's ceiling", async () => {
    const post = (body: object) => call('/web/api/settings', withKey(served.apiKey, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    const refused = await post({ attachment_limits: { images: { count: 20, max_bytes: 50_000_000 }, pdf_files: { count: 20, max_bytes: 50_000_000 } } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ msg: "Invalid request parameters: attachment_limits.images.count must be at most 5 on this server (its operator's ceiling), not 20" });
    const settings = (await (await call('/web/api/settings', withKey(served.apiKey))).json()) as { attachment_limits: { pdf_files: unknown } };
    expect(settings.attachment_limits.pdf_files).toEqual({ count: 3, max_bytes: 10_000_000 });
  });
});

describe('session links', () => {
  it('point answers and sessions to the web interface', async () => {
    const json = (body: object): RequestInit => withKey(served.apiKey, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = (await (await call('/api/v1/frob/answer/', json({ question: 'What is the wibble level?' }))).json()) as { session_id: string; question_url: string };
    expect(answer.question_url).toBe(`${served.base}/sessions/${encodeURIComponent(answer.session_id)}`);
    const sessions = (await (await call('/api/v1/frob/sessions/', json({}))).json()) as { today: { id: string; root_question_link: string }[] };
    expect(sessions.today.map((session) => session.root_question_link)).toEqual([answer.question_url]);
    expect((await call(new URL(answer.question_url).pathname)).headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});
