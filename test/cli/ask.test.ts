/** The ask command in-process, to see what it writes to a terminal and to a pipe. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/ask.js';
import { findCommand } from '../../src/cli/registry.js';
import type { CommandContext, Terminal } from '../../src/cli/spec.js';
import { openBackend } from '../../src/compose.js';
import { loadConfig, type Config } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';

interface Captured {
  readonly terminal: Terminal;
  readonly stdout: () => string;
  readonly stderr: () => string;
}

function capture(stderrIsTTY: boolean): Captured {
  const sink = () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    return { stream, text: () => text };
  };
  const out = sink();
  const err = sink();
  return {
    terminal: { stdin: Readable.from([]), stdout: out.stream, stderr: Object.assign(err.stream, { isTTY: stderrIsTTY }) },
    stdout: out.text,
    stderr: err.text,
  };
}

describe('guru-mcp ask, stage lines', () => {
  let dataDir: string;
  let config: Config;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-ask-'));
    config = loadConfig({ env: {}, flags: { dataDir } });
    const backend = await openBackend(config, silentLogger);
    try {
      await backend.admin!.createGuru({ slug: 'docs' });
      await backend.assistant.createDataSources('docs', {
        text_sources: [{ name: 'keys.md', content: '# API keys\n\nRotate an API key with `guru-mcp key create docs`, then delete the old one.' }],
      });
      await (backend.assistant as unknown as { whenIdle(): Promise<void> }).whenIdle();
    } finally {
      await backend.close();
    }
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const ask = async (captured: Captured, values: CommandContext['values'] = {}) => {
    const context: CommandContext = {
      command: findCommand('ask')!,
      args: ['docs', 'How', 'do', 'I', 'rotate', 'an', 'API', 'key?'],
      values,
      config,
      logger: silentLogger,
      terminal: captured.terminal,
      openBackend: () => openBackend(config, silentLogger),
    };
    expect(await run(context)).toBe(0);
  };

  it('shows the stages dimmed on stderr when it is a terminal, apart from the answer', async () => {
    const captured = capture(true);
    await ask(captured);
    expect(captured.stderr()).toBe('\x1b[2mSearching the knowledge base\x1b[22m\n\x1b[2mWriting the answer\x1b[22m\n');
    expect(captured.stdout()).toMatch(/^Trust score: \d+\/100$/m);
    expect(captured.stdout()).not.toContain('\x1b');
    expect(captured.stdout()).not.toContain('Searching the knowledge base');
  });

  it('writes no stages to a pipe', async () => {
    const captured = capture(false);
    await ask(captured);
    expect(captured.stderr()).toBe('');
    expect(captured.stdout()).toMatch(/^Session: \S+$/m);
  });

  it('shows them with --json too, keeping stdout pure JSON', async () => {
    const captured = capture(true);
    await ask(captured, { json: true });
    expect(captured.stderr()).toContain('Writing the answer');
    expect(JSON.parse(captured.stdout())).toMatchObject({ question: expect.any(String), trust_score: expect.any(Number) });
  });
});
