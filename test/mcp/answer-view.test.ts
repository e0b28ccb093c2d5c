/**
 * MCP Apps: `ask` and `semantic_search` name the answer view only for clients
 * that declare the `io.modelcontextprotocol/ui` extension; every other client
 * sees exactly the tools and resources it saw before. (The view in a browser:
 * test/mcp/answer-view.browser.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { UI_EXTENSION, VIEW_MIME_TYPE, VIEW_URI } from '../../src/mcp/apps/answer-view.js';
import { createMcpHttpHandler } from '../../src/mcp/http.js';
import { serveConnection } from '../../src/mcp/stdio.js';
import { BIN } from '../global-setup.js';
import { ERAS, connectClient, openTestBackend, type ProtocolRevision, type TestBackend } from './support.js';

/** A client that renders MCP Apps (as Claude, ChatGPT or VS Code declare themselves), or with `ui` false one that does not. */
function newUiClient(revision: ProtocolRevision, ui = true): Client {
  return new Client(
    { name: 'apps-host', version: '1.0.0' },
    {
      ...(ui ? { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } } } : {}),
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
}

async function connectUiClient(test: TestBackend, revision: ProtocolRevision): Promise<Client> {
  const client = newUiClient(revision);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serveConnection({ backend: test.backend, logger: silentLogger }, serverSide);
  await client.connect(clientSide);
  return client;
}

describe.each(ERAS)('the answer view (%s)', (era) => {
  let test: TestBackend;
  let plain: Client;
  let ui: Client;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    plain = await connectClient({ backend: test.backend, logger: silentLogger }, era);
    ui = await connectUiClient(test, era);
  });

  afterEach(async () => {
    await Promise.all([plain.close(), ui.close()]);
    await test.close();
  });

  it('names the view on ask and semantic_search for a host that declares the extension, and nowhere else', async () => {
    const { tools } = await ui.listTools();
    const named = tools.filter((tool) => tool._meta !== undefined).map((tool) => tool.name);
    expect(named.sort()).toEqual(['ask', 'semantic_search']);
    for (const name of named) {
      expect(tools.find((tool) => tool.name === name)!._meta).toEqual({ ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
    }
  });

  it('leaves tools/list of any other client as it was: the same JSON but for the two _meta keys', async () => {
    const without = await plain.listTools();
    const withUi = await ui.listTools();
    expect(without.tools.some((tool) => '_meta' in tool && tool._meta !== undefined)).toBe(false);
    const stripped = withUi.tools.map((tool) => {
      const copy: Record<string, unknown> = { ...tool };
      delete copy._meta;
      return copy;
    });
    expect(JSON.stringify(stripped)).toBe(JSON.stringify(without.tools));
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    console.log(`tools/list (${era}): ${bytes(without)} bytes without the extension, ${bytes(withUi)} with it`);
  });

  it('lists and serves the view to the host only', async () => {
    expect((await plain.listResources()).resources.map((resource) => resource.uri)).not.toContain(VIEW_URI);
    await expect(plain.readResource({ uri: VIEW_URI })).rejects.toThrow(/disabled/);

    const listed = (await ui.listResources()).resources.find((resource) => resource.uri === VIEW_URI);
    expect(listed?.mimeType).toBe(VIEW_MIME_TYPE);
    const { contents } = await ui.readResource({ uri: VIEW_URI });
    expect(contents).toHaveLength(1);
    const [content] = contents as [{ uri: string; mimeType: string; text: string; _meta: unknown }];
    expect(content.mimeType).toBe(VIEW_MIME_TYPE);
    expect(content._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } });
    // Self-contained: the trust bands are in, nothing is loaded from anywhere.
    expect(content.text).toContain('const TRUST_BANDS');
    expect(content.text).not.toMatch(/\bsrc=|<link|\bimport\b|export /);
    console.log(`answer view (${era}): ${Buffer.byteLength(content.text)} bytes`);
  });
});

describe.each(ERAS)('the answer view without the asking group (%s)', (era) => {
  it('is not offered, even to a host: there is no ask or semantic_search to show', async () => {
    const test = await openTestBackend();
    const client = newUiClient(era);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serveConnection({ backend: test.backend, logger: silentLogger, tools: ['knowledge'] }, serverSide);
    try {
      await client.connect(clientSide);
      expect((await client.listResources()).resources.map((resource) => resource.uri)).not.toContain(VIEW_URI);
      await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow(/not found|disabled/i);
    } finally {
      await client.close();
      await test.close();
    }
  });
});

describe.each(ERAS)('the answer view over streamable HTTP (%s)', (era) => {
  it('is decided per session (2025) or per request (2026-07-28): a host and a plain client side by side', async () => {
    const test = await openTestBackend();
    const handler = createMcpHttpHandler({ backend: test.backend, logger: silentLogger, requireBearer: false });
    const server = createServer((req, res) => void handler.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const host = newUiClient(era);
    const plain = newUiClient(era, false);
    try {
      await host.connect(new StreamableHTTPClientTransport(url));
      await plain.connect(new StreamableHTTPClientTransport(url));
      const [hostTools, plainTools] = await Promise.all([host.listTools(), plain.listTools()]);
      expect(hostTools.tools.find((tool) => tool.name === 'ask')?._meta).toEqual({ ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
      expect(plainTools.tools.find((tool) => tool.name === 'ask')?._meta).toBeUndefined();
      expect((await host.readResource({ uri: VIEW_URI })).contents[0]?.mimeType).toBe(VIEW_MIME_TYPE);
      await expect(plain.readResource({ uri: VIEW_URI })).rejects.toThrow(/disabled/);
    } finally {
      await Promise.all([host.close(), plain.close()]);
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await test.close();
    }
  });
});

describe.each(ERAS)('the answer view of the built command (%s)', (era) => {
  it('is found beside the bundle (scripts/bundle.js copies it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-mcp-view-'));
    const client = newUiClient(era);
    try {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'stdio', '--data-dir', dir], stderr: 'ignore' }));
      const [content] = (await client.readResource({ uri: VIEW_URI })).contents as unknown as [{ mimeType: string; text: string }];
      expect(content.mimeType).toBe(VIEW_MIME_TYPE);
      expect(content.text).toContain('const TRUST_BANDS');
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
