/** The built command loads the Markdown renderer only when it renders: it is no static import of start-up or of `ask`. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { connectClient, ERAS, newClient, openTestBackend } from '../mcp/support.js';
import { MAIN } from './run-cli.js';

const BIN_DIR = dirname(MAIN);
const STATIC_IMPORT = /(?:^|[\n;])\s*import\s*(?:[^"'();]*?\bfrom\s*)?["'](\.\/[^"']+)["']/g;

/** `file` and every bundle file it imports statically, transitively. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const [, path] of readFileSync(join(BIN_DIR, file), 'utf8').matchAll(STATIC_IMPORT)) staticClosure(path!.slice(2), seen);
  return seen;
}

const holdsRenderer = (file: string) => readFileSync(join(BIN_DIR, file), 'utf8').includes('function markedTerminal(');

describe('the bundle', () => {
  it('holds marked-terminal in a chunk of its own, outside what start-up and ask load statically', () => {
    const files = readdirSync(BIN_DIR).filter((file) => file.endsWith('.js'));
    expect(files.filter(holdsRenderer)).toHaveLength(1);
    const ask = files.find((file) => file.startsWith('ask-'))!;
    const eager = new Set([...staticClosure('guru-mcp.js'), ...staticClosure(ask)]);
    expect(eager.size).toBeGreaterThan(2);
    expect([...eager].filter(holdsRenderer)).toEqual([]);
  });

  it('keeps the web interface out of what the stdio server loads statically', () => {
    const files = readdirSync(BIN_DIR).filter((file) => file.endsWith('.js'));
    const holdsWeb = (file: string) => readFileSync(join(BIN_DIR, file), 'utf8').includes("the web interface's files are missing");
    expect(files.filter(holdsWeb)).toHaveLength(1);
    const stdio = files.filter((file) => file.startsWith('stdio-'));
    expect(stdio.length).toBeGreaterThan(0);
    const eager = new Set([...staticClosure('guru-mcp.js'), ...stdio.flatMap((file) => [...staticClosure(file)])]);
    expect([...eager].filter(holdsWeb)).toEqual([]);
  });

  it('keeps the engine and every module it needs only for a call out of what the stdio server loads before its first answer', () => {
    const files = readdirSync(BIN_DIR).filter((file) => file.endsWith('.js'));
    const stdio = files.filter((file) => file.startsWith('stdio-'));
    const eager = new Set([...staticClosure('guru-mcp.js'), ...stdio.flatMap((file) => [...staticClosure(file)])]);
    const sources = [...eager].flatMap((file) => (JSON.parse(readFileSync(join(BIN_DIR, `${file}.map`), 'utf8')) as { sources: string[] }).sources);
    // The check itself sees the modules it looks for: the MCP server is there, the engine is in the bundle.
    expect(sources.some((source) => source.endsWith('src/mcp/server.ts'))).toBe(true);
    const late = /\/src\/(engine|web|http|remote|state)\/|\/node_modules\/(undici|linkedom|marked|marked-terminal|keyv|@keyv\/sqlite|turndown|unpdf|mammoth)\//;
    expect(sources.filter((source) => late.test(source))).toEqual([]);
  });

  // The bundle lists the JSON Schemas converted when it was built (src/mcp/listed-schemas.ts): they must be what the sources convert to.
  it.each(ERAS)('lists over stdio the tools the server run from the sources lists (%s)', async (era) => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-mcp-bundle-tools-'));
    const built = newClient(era);
    const sources = await openTestBackend();
    try {
      await built.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, 'stdio', '--data-dir', dir], stderr: 'pipe' }));
      const fromSources = await connectClient({ backend: sources.backend, logger: silentLogger }, era);
      const expected = (await fromSources.listTools()).tools;
      await fromSources.close();
      expect(expected.length).toBeGreaterThan(20);
      expect((await built.listTools()).tools).toEqual(expected);
    } finally {
      await built.close();
      await sources.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
