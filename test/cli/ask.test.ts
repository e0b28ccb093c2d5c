/** The ask command in-process, to see what it writes to a terminal and to a pipe. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
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

function capture(stderrIsTTY: boolean, stdoutIsTTY = false): Captured {
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
    terminal: {
      stdin: Readable.from([]),
      stdout: Object.assign(out.stream, { isTTY: stdoutIsTTY, columns: 72 }),
      stderr: Object.assign(err.stream, { isTTY: stderrIsTTY }),
    },
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
        text_sources: [
          {
            name: 'keys.md',
            content: '# API keys\n\nRotate an API key with `guru-mcp key create docs`, then delete the old one. Keep a dump made with pg\\_restore.',
          },
        ],
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

  it('renders the answer for a terminal: no Markdown marks, escapes undone, the footer as it is', async () => {
    const captured = capture(false, true);
    await ask(captured);
    // Colours depend on where the tests run; the words do not.
    const answer = stripVTControlCharacters(captured.stdout().split('\nTrust score:')[0]!);
    expect(answer).toContain('guru-mcp key create docs');
    expect(answer).toContain('pg_restore');
    expect(answer).not.toMatch(/\*\*|`|\\_/);
    expect(captured.stdout()).toMatch(/^Trust score: \d+\/100$/m);
    // In-process, the program is the test runner's: the hint's words and data directory are the command's.
    expect(captured.stdout()).toMatch(new RegExp(`^Follow up: .+ ask docs --session \\S+ <question\\.\\.\\.> --data-dir ${dataDir}$`, 'm'));
  });

  it('keeps the Markdown in a pipe, and in --json on a terminal', async () => {
    const piped = capture(false, false);
    await ask(piped);
    expect(piped.stdout()).toContain('**');
    expect(piped.stdout()).toContain('`guru-mcp key create docs`');
    expect(piped.stdout()).toContain('pg\\_restore');

    const json = capture(false, true);
    await ask(json, { json: true });
    expect((JSON.parse(json.stdout()) as { content: string }).content).toContain('**');
  });
});
