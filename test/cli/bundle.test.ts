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
});
