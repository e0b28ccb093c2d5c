/** Shared set-up of the MCP tests: a real engine in a temporary directory and an SDK client. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, ProgressNotification } from '@modelcontextprotocol/sdk/types.js';
import { openBackend } from '../../src/compose.js';
import type { OpenedBackend } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { ConfigInput } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';

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

/** A connected client; tools are listed once so that the client validates structured content. */
export async function connectClient(server: McpServer): Promise<Client> {
  const client = new Client({ name: 'guru-mcp-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
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
  client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
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
