/** The built command loads the Markdown renderer only when it renders: it is no static import of start-up or of `ask`. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
});
