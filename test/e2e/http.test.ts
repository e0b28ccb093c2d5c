/** The built CLI's `serve`: MCP over streamable HTTP at /mcp. */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from '../global-setup.js';
import { ERAS, newClient } from '../mcp/support.js';
import { askStreaming, WIBBLE_MANUAL, WIBBLE_QUESTION } from '../support/streamed-answer.js';
import { answerOf } from '../support/mcp-answer.js';

const CLI = BIN;
const run = promisify(execFile);

/** Starts `serve` on a free loopback port; resolves with its base URL once it says where it listens. */
function serve(dir: string): Promise<{ child: ChildProcess; base: URL }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolveStart, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolveStart({ child, base: new URL(match[1]!) });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
  });
}

describe.each(ERAS)('guru-mcp serve /mcp (built CLI) (%s)', (era) => {
  let dir: string;
  let child: ChildProcess | undefined;
  let client: Client | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'guru-mcp-e2e-http-'));
  });

  afterEach(async () => {
    await client?.close();
    client = undefined;
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child!.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    child = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a client on a page of another origin, in front of both eras', async () => {
    const started = await serve(dir);
    child = started.child;
    const answers: { status: number; body: string }[] = [];
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', started.base), {
      requestInit: { headers: { origin: 'http://evil.example' } },
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        answers.push({ status: response.status, body: await response.clone().text() });
        return response;
      },
    });
    await expect(newClient(era).connect(transport)).rejects.toThrow();
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body).toContain('Invalid Origin header: http://evil.example');
    }
  });

  it('serves MCP over HTTP', async () => {
    await run(process.execPath, [CLI, 'guru', 'create', 'frob', '--json', '--data-dir', dir]);
    const started = await serve(dir);
    child = started.child;
    const url = new URL('/mcp', started.base);

    const transport = new StreamableHTTPClientTransport(url);
    client = newClient(era);
    await client.connect(transport);
    // Sessions are the 2025 era's; 2026-07-28 requests stand alone (test/mcp/http.test.ts covers DELETE).
    expect(transport.sessionId !== undefined).toBe(era === '2025-11-25');

    const added = (await client.callTool({
      name: 'add_sources',
      arguments: { text_sources: [{ name: 'Wibble notes', content: 'The wibble level of Frobnicator defaults to 3 and is set in frob.toml.' }], wait: true },
    })) as CallToolResult;
    expect(added.isError).toBeFalsy();

    const asked = (await client.callTool({ name: 'ask', arguments: { question: 'What is the default wibble level?' } })) as CallToolResult;
    expect(asked.isError).toBeFalsy();
    const answer = answerOf(asked);
    expect(answer.content).toContain('defaults to 3');
    expect(answer.references.map((reference) => reference.title)).toEqual(['Wibble notes']);
  });

  it("streams every piece of a long answer to the SDK client's onprogress, call after call", async () => {
    await run(process.execPath, [CLI, 'guru', 'create', 'wibble', '--json', '--data-dir', dir]);
    const started = await serve(dir);
    child = started.child;
    client = newClient(era);
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', started.base)));
    const added = (await client.callTool({
      name: 'add_sources',
      arguments: { text_sources: [{ name: 'Wibble manual', content: WIBBLE_MANUAL }], wait: true },
    })) as CallToolResult;
    expect(added.isError).toBeFalsy();

    for (let round = 0; round < 5; round++) {
      const { answer, streamed } = await askStreaming(client, WIBBLE_QUESTION);
      expect(answer.content.split('\n').length).toBeGreaterThan(30);
      expect(streamed).toBe(answer.content);
    }
  });
});
