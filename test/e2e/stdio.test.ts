/** The built CLI over stdio, driven by the SDK client as an MCP host would. */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CreatedGuru } from '../../src/core/schemas.js';
import { waitForSources } from '../../src/core/wait-for-sources.js';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { BIN } from '../global-setup.js';
import { ERAS, newClient } from '../mcp/support.js';
import { askStreaming, WIBBLE_MANUAL, WIBBLE_QUESTION } from '../support/streamed-answer.js';
import { answerOf } from '../support/mcp-answer.js';

const CLI = BIN;
const run = promisify(execFile);

const GUIDE = `# Frobnicator installation

## Requirements

Frobnicator needs Node.js 20 or newer and a C compiler.

## Installing

Run npm install -g frobnicator; the frob command lands on your PATH.
`;

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

describe.each(ERAS)('guru-mcp stdio (built CLI) (%s)', (era) => {
  let dir: string;
  let client: Client | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'guru-mcp-e2e-stdio-'));
  });

  afterEach(async () => {
    await client?.close();
    client = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a question from text added over MCP, with nothing but protocol on stdout', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'guru', 'create', 'frob', '--name', 'Frobnicator', '--json', '--data-dir', dir]);
    expect(CreatedGuru.parse(JSON.parse(stdout)).slug).toBe('frob');

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'stdio', '--data-dir', dir],
      env: { ...process.env, GURU_LOG_LEVEL: 'debug' } as Record<string, string>,
      stderr: 'pipe',
    });
    const protocolErrors: Error[] = [];
    client = newClient(era);
    client.onerror = (error) => protocolErrors.push(error);
    await client.connect(transport);

    expect(client.getServerVersion()?.name).toBe('guru-mcp');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['ask', 'add_sources', 'list_gurus']));

    const added = (await client.callTool({
      name: 'add_sources',
      arguments: { text_sources: [{ name: 'Install guide', content: GUIDE }], wait: true },
    })) as CallToolResult;
    expect(added.isError, textOf(added)).toBeFalsy();
    expect(textOf(added)).toContain('SUCCESS');

    const asked = (await client.callTool({ name: 'ask', arguments: { question: 'How do I install Frobnicator?' } })) as CallToolResult;
    expect(asked.isError, textOf(asked)).toBeFalsy();
    const answer = answerOf(asked);
    expect(answer.references.map((reference) => reference.title)).toEqual(['Install guide']);
    expect(answer.content).toContain('npm install -g frobnicator');
    expect(textOf(asked)).toContain(`Session: ${answer.session_id}`);

    const { contents } = await client.readResource({ uri: answer.question_url });
    expect((contents[0] as { text: string }).text).toContain('## 1. How do I install Frobnicator?');

    // Debug logging was on: any log line on stdout would have broken the protocol stream.
    expect(protocolErrors).toEqual([]);
  });

  it("streams every piece of a long answer to the SDK client's onprogress, call after call", async () => {
    await run(process.execPath, [CLI, 'guru', 'create', 'wibble', '--json', '--data-dir', dir]);
    client = newClient(era);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'stdio', '--data-dir', dir], stderr: 'ignore' }));
    const added = (await client.callTool({
      name: 'add_sources',
      arguments: { text_sources: [{ name: 'Wibble manual', content: WIBBLE_MANUAL }], wait: true },
    })) as CallToolResult;
    expect(added.isError, textOf(added)).toBeFalsy();

    for (let round = 0; round < 5; round++) {
      const { answer, streamed } = await askStreaming(client, WIBBLE_QUESTION);
      expect(answer.content.split('\n').length).toBeGreaterThan(30);
      if (era === '2025-11-25') {
        expect(streamed).toBe(answer.content);
      } else {
        // The v2 client pinned to 2026-07-28 drops progress that reaches it in the same read as the
        // result, and that era has no ping to confirm delivery with (src/mcp/progress.ts): what
        // arrives is the answer's beginning, and the result carries all of it.
        expect(answer.content.startsWith(streamed)).toBe(true);
      }
    }
  });

  it('serves the handshake and tools/list when the data directory cannot be created; each call that needs it says why, and stderr logs it', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    const dataDir = join(blocker, 'data');
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'stdio', '--data-dir', dataDir], stderr: 'pipe' });
    let stderr = '';
    (transport.stderr as Readable | null)?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    client = newClient(era);
    await client.connect(transport);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['ask', 'add_sources', 'list_gurus']));
    const listed = (await client.callTool({ name: 'list_gurus', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBe(true);
    expect(textOf(listed)).toMatch(/^The knowledge base could not be opened: .*ENOTDIR/);
    expect(textOf(listed)).toContain(`Its data directory is ${dataDir}`);
    // stderr is a stream of its own: the log line may arrive after the result.
    await vi.waitFor(() => expect(stderr).toMatch(/backend could not be opened.*ENOTDIR/));
  });

  it('takes up work another process queued before any call: after the handshake, or soon when a 2026-07-28 client says nothing', async () => {
    await run(process.execPath, [CLI, 'guru', 'create', 'frob', '--data-dir', dir]);
    const added = spawn(process.execPath, [CLI, 'add', 'frob', '--name', 'Install guide', '--no-wait', '--data-dir', dir], { stdio: ['pipe', 'ignore', 'ignore'] });
    added.stdin.end(GUIDE);
    expect(await new Promise((done) => added.once('exit', done))).toBe(0);

    client = newClient(era);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'stdio', '--data-dir', dir], stderr: 'pipe' }));
    // A reader that takes no work: only the stdio server can process the source.
    const reader = await LocalEngine.open({ dataDir: dir, processQueue: false });
    try {
      const [source] = (await reader.listDataSources('frob', { page: 1, page_size: 10 })).results;
      const [outcome] = await waitForSources(reader, 'frob', [source!.id], { timeLimitMs: 20_000 });
      expect(outcome?.source?.status).toBe('SUCCESS');
    } finally {
      await reader.close();
    }
  });

  it('ends with exit code 0 and no output when the client closes stdin', async () => {
    const child = spawn(process.execPath, [CLI, 'stdio', '--data-dir', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stdin.end();
    const code = await new Promise<number | null>((done) => child.once('exit', (exitCode) => done(exitCode)));
    expect(code).toBe(0);
    expect(stdout).toBe('');
  });
});

