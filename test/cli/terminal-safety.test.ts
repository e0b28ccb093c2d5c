/**
 * Untrusted text (source names, end users' questions, answers quoting the knowledge) carries no
 * control sequence to the operator: not to a terminal, not through a pipe. The sanitizer itself,
 * then the built command's stdout bytes for sources, sessions, session and ask.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeJson } from '../../src/cli/output.js';
import { controlled, safeOutput, terminalSafe, writeControlled } from '../../src/cli/terminal-text.js';
import { openBackend } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { DataSourcePage } from '../../src/core/assistant.js';
import type { SessionConversation, SessionList } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { MAIN, cleanEnv } from './run-cli.js';

const EVIL_NAME = 'evil\u001b]0;PWNED\u0007\u001b[2J.md';
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4K\u0007';
/** Every kind of control the sanitizer must take out, bytes a terminal acts on. */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminalSafe', () => {
  it.each([
    ['an OSC title ended by BEL', 'a\u001b]0;PWNED\u0007b', 'ab'],
    ['an OSC 52 clipboard write ended by ST', 'a\u001b]52;c;ZXZpbA==\u001b\\b', 'ab'],
    ['an OSC hyperlink', '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007', 'click'],
    ['CSI sequences: clear, colours, cursor moves', '\u001b[2J\u001b[31mred\u001b[0m\u001b[10;5H!', 'red!'],
    ['a DCS string', 'a\u001bP1$qm\u001b\\b', 'ab'],
    ['two-character escapes', 'a\u001bcb\u001b(Bc\u001b7d', 'abcd'],
    ['C1 controls: 8-bit CSI and OSC', 'a\u009b2Jb\u009d0;x\u009cc\u0085d', 'abcd'],
    ['C0 controls but tab and newline', 'a\u0007b\bc\rd\u0000e\tf\ng\u007f', 'abcde\tf\ng'],
    ['bidirectional overrides and isolates', 'a\u202eb\u2066c\u2069d\u202ce', 'abcde'],
    ['an OSC never ended', 'a\u001b]0;title to the end', 'a'],
  ])('removes %s', (_name, text, safe) => {
    expect(terminalSafe(text)).toBe(safe);
  });

  it('keeps text in every script, emoji, tabs and newlines', () => {
    const text = 'Grüße, 東京, שלום, مرحبا, 🚀\tcol\nnext — “quoted” ‘x’ …';
    expect(terminalSafe(text)).toBe(text);
  });

  it('lets nothing through when a sequence is cut between two writes', () => {
    const writes: string[] = [];
    const stream = safeOutput({ write: (chunk: string | Uint8Array) => writes.push(String(chunk)) });
    stream.write('answer \u001b]52;c;cm0g');
    stream.write('LXJmIH4K\u0007 and \u001b');
    stream.write('[2J done');
    expect(writes.join('')).not.toMatch(CONTROLS);
  });

  it("writes the CLI's own controls as they are, and makes their values safe", () => {
    const writes: string[] = [];
    const stream = safeOutput({ write: (chunk: string | Uint8Array) => writes.push(String(chunk)) });
    writeControlled(stream, controlled`\r${`bar ${EVIL_NAME}`}\u001b[K`);
    stream.write(`plain ${EVIL_NAME}`);
    expect(writes).toEqual(['\rbar evil.md\u001b[K', 'plain evil.md']);
  });

  it('keeps JSON faithful: controls escaped, none raw', () => {
    let json = '';
    writeJson({ write: (chunk: string | Uint8Array) => (json += String(chunk)) }, { title: `${EVIL_NAME}\u009b2J\u202e` });
    expect(json).not.toMatch(CONTROLS);
    expect(JSON.parse(json)).toEqual({ title: `${EVIL_NAME}\u009b2J\u202e` });
  });
});

describe('the built command', () => {
  let dataDir: string;
  let sessionId: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-terminal-safety-'));
    const config = loadConfig({ env: {}, flags: { dataDir } });
    const backend = await openBackend(config, silentLogger);
    try {
      await backend.admin!.createGuru({ slug: 'docs' });
      await backend.assistant.createDataSources('docs', {
        text_sources: [
          { name: EVIL_NAME, content: `# The wibble dial\n\nTurn the wibble dial clockwise to calibrate it.${CLIPBOARD} Calibration takes \u001b[8mtwo\u001b[0m minutes.\n` },
        ],
      });
      await (backend.assistant as unknown as { whenIdle(): Promise<void> }).whenIdle();
      const answer = await backend.assistant.ask('docs', { question: `How is the wibble dial turned?${CLIPBOARD}\u001b[2J`, fetch_existing: false });
      sessionId = answer.session_id;
    } finally {
      await backend.close();
    }
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The command's stdout and stderr as bytes, through pipes. */
  const run = (args: string[]): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [MAIN, ...args, '--data-dir', dataDir], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
    });

  const expectNoControls = (bytes: Buffer) => {
    expect(bytes.includes(0x1b), bytes.toString()).toBe(false);
    expect(bytes.includes(0x07), bytes.toString()).toBe(false);
    expect(bytes.toString('utf8')).not.toMatch(CONTROLS);
  };

  it.each([
    ['sources', ['sources', 'docs'], /^ID {2}TYPE {2}STATUS {3}TITLE {4}URL.*\n1 {3}TEXT {2}SUCCESS {2}evil\.md$/m],
    ['sessions', ['sessions', 'docs'], '  How is the wibble dial turned?\n'],
    ['session', ['session', 'docs', '<session>'], 'Q: How is the wibble dial turned?\n'],
    ['ask', ['ask', 'docs', 'How do I calibrate the wibble dial?'], 'clockwise to calibrate it. Calibration takes two minutes.'],
  ])('%s writes no control sequence to a pipe, and keeps the text around it', async (_name, args, shown) => {
    const result = await run(args.map((arg) => (arg === '<session>' ? sessionId : arg)));
    expect(result.code, result.stderr.toString()).toBe(0);
    expectNoControls(result.stdout);
    expectNoControls(result.stderr);
    if (typeof shown === 'string') expect(result.stdout.toString()).toContain(shown);
    else expect(result.stdout.toString()).toMatch(shown);
  });

  it('keeps --json faithful, with the controls escaped', async () => {
    const sources = await run(['sources', 'docs', '--json']);
    expectNoControls(sources.stdout);
    expect((JSON.parse(sources.stdout.toString()) as DataSourcePage).results[0]?.title).toBe(EVIL_NAME);

    const session = await run(['session', 'docs', sessionId, '--json']);
    expectNoControls(session.stdout);
    expect((JSON.parse(session.stdout.toString()) as SessionConversation).conversation[0]?.user_question).toBe(`How is the wibble dial turned?${CLIPBOARD}\u001b[2J`);

    const sessions = await run(['sessions', 'docs', '--json']);
    expectNoControls(sessions.stdout);
    expect((JSON.parse(sessions.stdout.toString()) as SessionList).today.map((session) => session.root_question_name)).toContain(`How is the wibble dial turned?${CLIPBOARD}\u001b[2J`);
  });

  it('writes no control sequence in an error either', async () => {
    const result = await run(['session', 'docs', `no-such\u001b]0;PWNED\u0007`]);
    expect(result.code).toBe(1);
    expectNoControls(result.stderr);
  });
});
