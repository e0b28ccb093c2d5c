/**
 * Shared set-up of the MCP tests: a real engine in a temporary directory and an
 * SDK client of either protocol era, connected in-process to the stdio serving
 * of `guru-mcp stdio` (the SDK's entry, which picks the era).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { CallToolResult, ProgressNotification } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { openBackend } from '../../src/compose.js';
import type { OpenedBackend } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { ConfigInput } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import type { GuruMcpServerOptions } from '../../src/mcp/server.js';
import { serveConnection } from '../../src/mcp/stdio.js';

/** The protocol eras every MCP test runs in: 2025-11-25 (initialize, sessions) and 2026-07-28 (stateless). */
export const ERAS = ['2025-11-25', '2026-07-28'] as const;
export type ProtocolRevision = (typeof ERAS)[number];

/** An SDK v2 client speaking `revision`: the plain 2025 handshake, or pinned to 2026-07-28. */
export function newClient(revision: ProtocolRevision): Client {
  return new Client(
    { name: 'guru-mcp-test', version: '1.0.0' },
    revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
}

export interface TestBackend {
  readonly backend: OpenedBackend;
  readonly dir: string;
  close(): Promise<void>;
}

/** Settings on top of a fresh data directory, e.g. `allowPrivateNetwork: true` for sources on loopback servers. */
export type TestSettings = Omit<Partial<ConfigInput>, 'dataDir'>;

export async function openTestBackend(options: TestSettings = {}): Promise<TestBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'guru-mcp-test-'));
  const config = loadConfig({ env: {}, flags: { dataDir: dir, ...options } });
  const backend = await openBackend(config, silentLogger);
  return {
    backend,
    dir,
    async close() {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A client of `revision` connected to the servers `options` describe; tools are
 * listed once so that the client validates structured content.
 */
export async function connectClient(options: Omit<GuruMcpServerOptions, 'era'>, revision: ProtocolRevision): Promise<Client> {
  const client = newClient(revision);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serveConnection(options, serverSide);
  await client.connect(clientSide);
  await client.listTools();
  return client;
}

/**
 * Collects every progress notification the client receives, whatever request
 * it belongs to; requests then carry their own `_meta.progressToken`. (The
 * e2e tests check the SDK's `onprogress` option, test/support/streamed-answer.ts.)
 */
export function collectProgress(client: Client): ProgressNotification['params'][] {
  const seen: ProgressNotification['params'][] = [];
  client.setNotificationHandler('notifications/progress', (notification) => {
    seen.push(notification.params);
  });
  return seen;
}

export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

export const INSTALL_GUIDE = `# Installing Frobnicator

## Requirements

Frobnicator needs Node.js 20 or newer and a C compiler for its native parts.

## Installation

Run the installer from a terminal: npm install -g frobnicator. The installer places the frob command on your PATH.
`;

export const CONFIG_GUIDE = `# Configuring Frobnicator

## The configuration file

Frobnicator reads its settings from frob.toml in the project root. The wibble level sets how aggressively
frobnication happens; it defaults to 3.
`;

/** Updates of `uri` until `close()`: resources/subscribe in the 2025 era, a subscriptions/listen stream in 2026-07-28. */
export async function subscribe(client: Client, revision: ProtocolRevision, uri: string): Promise<{ close(): Promise<void> }> {
  if (revision === '2025-11-25') {
    await client.subscribeResource({ uri });
    return { close: async () => void (await client.unsubscribeResource({ uri })) };
  }
  const subscription = await client.listen({ resourceSubscriptions: [uri] });
  return { close: () => subscription.close() };
}

/** `message` is ours for a URI a template matches, the SDK's own ("Resource not found: …") for one that matches none. */
export async function expectNotFound(client: Client, uri: string, message = `Resource ${uri} not found`): Promise<void> {
  const failure = await client.readResource({ uri }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(ProtocolError);
  expect((failure as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
  // Sent once, without an "MCP error -32602:" prefix (SDK 1.x doubled it).
  expect((failure as ProtocolError).message).toBe(message);
}
