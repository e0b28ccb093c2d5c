import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpFetcher } from '../../src/net/http-fetcher.js';
import { recordOf, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

describe('HttpFetcher.post', () => {
  let site: LoopbackServer;

  beforeAll(async () => {
    site = await startLoopbackServer({
      '/echo': (request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ method: request.method, type: request.headers['content-type'], body: recordOf(request).body }));
      },
      '/moved': (_request, response) => {
        response.writeHead(307, { location: '/echo' }).end();
      },
    });
  });

  afterAll(async () => {
    await site.close();
  });

  it('sends the body and its headers', async () => {
    const fetcher = new HttpFetcher({ allowPrivateNetwork: true });
    try {
      const response = await fetcher.post(site.url('/echo'), '{"a":1}', { headers: { 'content-type': 'application/json' } });
      expect(response.json()).toEqual({ method: 'POST', type: 'application/json', body: '{"a":1}' });
    } finally {
      await fetcher.close();
    }
  });

  it('does not follow a redirect, which would send the body elsewhere', async () => {
    const fetcher = new HttpFetcher({ allowPrivateNetwork: true });
    try {
      await expect(fetcher.post(site.url('/moved'), 'x')).rejects.toMatchObject({ kind: 'redirect_refused', status: 307 });
    } finally {
      await fetcher.close();
    }
  });

  it('refuses loopback addresses like get does, without connecting', async () => {
    const fetcher = new HttpFetcher({ allowPrivateNetwork: false });
    const before = site.connections;
    try {
      await expect(fetcher.post(site.url('/echo'), 'x')).rejects.toMatchObject({ kind: 'blocked_address' });
      expect(site.connections).toBe(before);
    } finally {
      await fetcher.close();
    }
  });
});
