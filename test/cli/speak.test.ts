/**
 * `guru-mcp speak` through the built bin: MP3 on stdout (a pipe) or in a file,
 * text from the arguments or stdin, the spec's errors; and, in-process, the
 * refusal to write audio to a terminal.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/failures.js';
import { findCommand } from '../../src/cli/registry.js';
import { openBackend } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { readMp3 } from '../../src/core/mp3-frames.js';
import { silentLogger } from '../../src/log.js';
import { startSpeechStandIn } from '../stand-ins/openai-speech.js';
import { spokenDurationRange } from '../support/spoken-duration.js';
import { cleanEnv, MAIN } from './run-cli.js';

interface BinaryResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

function runBinary(args: readonly string[], input = '', env: Record<string, string> = {}): Promise<BinaryResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(stdout), stderr }));
    child.stdin.end(input);
  });
}

describe('guru-mcp speak', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-speak-'));
    const backend = await openBackend(loadConfig({ env: {}, flags: { dataDir } }), silentLogger);
    await backend.admin!.createGuru({ slug: 'frob' });
    await backend.close();
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes the MP3 of its arguments to stdout when stdout is a pipe', async () => {
    const result = await runBinary(['speak', 'frob', 'Keys', 'rotate', 'every', 'ninety', 'days.', '--data-dir', dataDir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const mp3 = readMp3(result.stdout);
    const [shortest, longest] = spokenDurationRange(5);
    expect(mp3.durationSeconds).toBeGreaterThan(shortest);
    expect(mp3.durationSeconds).toBeLessThan(longest);
  });

  it('reads the text from stdin with "-" and writes it to --out FILE', async () => {
    const out = join(dataDir, 'speech.mp3');
    const result = await runBinary(['speak', 'frob', '-', '-o', out, '--data-dir', dataDir], '# Setup\n\nRun `frob install` first.\n');
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBe(0);
    expect(readMp3(readFileSync(out)).frames).toBeGreaterThan(10);
  });

  it('fails with the spec message, and leaves no file, when there is nothing to say', async () => {
    const out = join(dataDir, 'nothing.mp3');
    const result = await runBinary(['speak', 'frob', '-o', out, '--data-dir', dataDir], '   ');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No text provided');
    expect(existsSync(out)).toBe(false);
  });

  it('refuses to write audio to a terminal', async () => {
    const config = loadConfig({ env: {}, flags: { dataDir } });
    const command = findCommand('speak')!;
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    const terminal = { stdin: Readable.from([]), stdout: Object.assign(sink, { isTTY: true }), stderr: sink };
    const running = (await command.load()).run({
      command,
      args: ['frob', 'Hello.'],
      values: {},
      config,
      logger: silentLogger,
      terminal,
      openBackend: () => openBackend(config, silentLogger),
    });
    await expect(running).rejects.toThrow(UsageError);
    await expect(running).rejects.toThrow(/refusing to write MP3 audio to a terminal/);
  });

  it('speech <slug> on lets speak --v2 use the provider; off stops it', async () => {
    const provider = await startSpeechStandIn();
    try {
      const env = { GURU_TTS_URL: provider.baseUrl, GURU_TTS_MODEL: 'tts-1', GURU_TTS_VOICE: 'nova', GURU_TTS_API_KEY: 'sk-cli' };
      const refused = await runBinary(['speak', 'frob', '--v2', 'Hello.', '--data-dir', dataDir], '', env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Text-to-speech is not enabled for this guru type');
      const on = await runBinary(['speech', 'frob', 'on', '--data-dir', dataDir]);
      expect(on.code).toBe(0);
      expect(on.stdout.toString()).toContain('frob now speaks through the speech provider');
      const spoken = await runBinary(['speak', 'frob', '--v2', 'Hello', 'there.', '--data-dir', dataDir], '', env);
      expect(spoken.stderr).toBe('');
      expect(readMp3(spoken.stdout).frames).toBe(2 * 15);
      expect(provider.received).toEqual([{ body: { model: 'tts-1', voice: 'nova', input: 'Hello there.', response_format: 'mp3' }, token: 'sk-cli' }]);
      expect((await runBinary(['speech', 'frob', 'off', '--data-dir', dataDir])).code).toBe(0);
      expect((await runBinary(['speak', 'frob', '--v2', 'Hello.', '--data-dir', dataDir], '', env)).code).toBe(1);
      const wrong = await runBinary(['speech', 'frob', 'maybe', '--data-dir', dataDir]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('say on or off, not "maybe"');
    } finally {
      await provider.close();
    }
  });
});
