/** A first run: `npm start` (serve) or an MCP client (stdio) on a data directory without any guru leads to one in one step. */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, ROOT, cleanEnv, runCli } from './run-cli.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-first-run-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `serve` from the project directory, as `npm start` does, and resolves with its stderr once it listens. */
async function serveStderr(dataDir: string): Promise<string> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--data-dir', dataDir], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  try {
    await new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (/^listening on /m.test(stderr)) resolve();
      });
      child.once('exit', () => reject(new Error(`serve exited:\n${stderr}`)));
    });
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  return stderr;
}

describe('a first run', () => {
  it('serve names the one command that creates a guru; that command works as printed and says what comes next', async () => {
    const dataDir = join(dir, 'serve');
    const stderr = await serveStderr(dataDir);
    const hint = /^No guru yet\. Create one, and see what to do next, with: (.+)$/m.exec(stderr);
    expect(hint, stderr).not.toBeNull();
    const command = hint![1]!;
    expect(command).toBe(`node dist/bin/guru-mcp.js guru create docs --data-dir ${dataDir}`);

    const created = spawnSync('sh', ['-c', command], { cwd: ROOT, env: cleanEnv(), encoding: 'utf8' });
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^API key: \S+$/m);
    expect(created.stdout).toContain('Next steps:');
    expect(created.stdout).toContain(`node dist/bin/guru-mcp.js add docs README.md https://example.com/docs/ --data-dir ${dataDir}`);
    expect(created.stdout).toContain(`node dist/bin/guru-mcp.js ask docs "How do I get started?" --data-dir ${dataDir}`);
    const entry = /^ {4}"guru": (\{.*\})$/m.exec(created.stdout)?.[1];
    expect(JSON.parse(entry!)).toEqual({ command: 'node', args: [MAIN, 'stdio'], env: { GURU_DEFAULT_GURU: 'docs', GURU_DATA_DIR: dataDir } });

    // Once a guru exists the hint is gone; the key is printed by guru create alone, never to the server's log.
    const apiKey = /^API key: (\S+)$/m.exec(created.stdout)![1]!;
    const again = await serveStderr(dataDir);
    expect(again).not.toContain('No guru yet');
    expect(`${stderr}${again}`).not.toContain(apiKey);
    const list = await runCli(['guru', 'list', '--json', '--data-dir', dataDir]);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ slug: 'docs' })]);
  });

  it('stdio says the same on stderr, and its tools tell the model how to create a guru', async () => {
    const dataDir = join(dir, 'stdio');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'stdio', '--data-dir', dataDir],
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    const stderrStream = transport.stderr as Readable;
    stderrStream.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const stderrEnded = once(stderrStream, 'end');
    const client = new Client({ name: 'first-run', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'ask', arguments: { question: 'What is this?' } });
      expect(result.isError).toBe(true);
      const text = (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n');
      expect(text).toContain('No guru exists yet. Create one: call create_guru with {"slug": "docs"}');
      expect(text).toContain('add_sources');
    } finally {
      await client.close();
    }
    // All the server wrote, however long its exit took on a busy machine.
    await stderrEnded;
    expect(stderr).toMatch(/^No guru yet\. Create one, and see what to do next, with: .+ guru create docs --data-dir /m);
  });
});
