/**
 * One rate limit on every surface of `guru-mcp serve`: REST, /mcp's tool calls and the web
 * interface's API count in the same windows (GURU_RATE_LIMIT_PER_MINUTE per guru and end user).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serveGuru, type ServedGuru } from '../support/serve.js';

describe('the rate limit of serve', () => {
  let served: ServedGuru;
  let client: Client | undefined;

  beforeEach(async () => {
    served = await serveGuru('docs', { GURU_RATE_LIMIT_PER_MINUTE: '2' });
  });

  afterEach(async () => {
    await client?.close();
    await served?.close();
  });

  const restSearch = async (externalUserId: string) => {
    const reply = await request(`${served.base}/api/v1/docs/semantic-search/`, {
      method: 'POST',
      headers: { 'x-api-key': served.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'lamp', external_user_id: externalUserId }),
    });
    return { status: reply.statusCode, body: await reply.body.json() };
  };

  it('counts REST requests, /mcp tool calls and web interface requests in the same windows', async () => {
    client = new Client({ name: 'rate-limit-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.base}/mcp`)));
    const mcpSearch = (externalUserId: string) =>
      client!.callTool({ name: 'semantic_search', arguments: { question: 'lamp', external_user_id: externalUserId } });

    expect((await mcpSearch('ann')).isError).toBeFalsy();
    expect((await restSearch('ann')).status).toBe(200);
    expect(await restSearch('ann')).toEqual({ status: 429, body: { error: 'Rate limit exceeded' } });
    expect(await mcpSearch('ann')).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Rate limit exceeded\nWait \d+ seconds? before calling again/) }] });
    expect((await restSearch('bob')).status).toBe(200);

    // The web interface's requests carry the key and no end user: the key's own window.
    const me = () => request(`${served.base}/web/api/me`, { headers: { 'x-api-key': served.apiKey } }).then(async (reply) => ({ status: reply.statusCode, body: await reply.body.text() }));
    expect((await me()).status).toBe(200);
    expect((await me()).status).toBe(200);
    expect((await me()).status).toBe(429);
  });
});
