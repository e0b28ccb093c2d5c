/** `guru-mcp settings`, spawning the built bin against a data directory on disk. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

let dataDir: string;
const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-settings-'));
  expect((await cli('guru', 'create', 'docs')).code).toBe(0);
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('guru-mcp settings', () => {
  it('prints the defaults, one line per setting', async () => {
    const result = await cli('settings', 'docs');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/model instructions\s+\(none\)/);
    expect(result.stdout).toMatch(/use model\s+on/);
    expect(result.stdout).toMatch(/attachments: pdf_files\s+3 of at most 10000000 bytes/);
  });

  it('changes what the options name and keeps the rest', async () => {
    const set = await cli('settings', 'docs', '--model-instructions', 'Answer as Acme support.', '--use-model', 'off', '--attachment-limit', 'log_files=2x500000', '--json');
    expect(set.code).toBe(0);
    const settings = JSON.parse(set.stdout) as { model_instructions: string; use_model: boolean; speech_provider: boolean; attachment_limits: Record<string, unknown> };
    expect(settings).toMatchObject({ model_instructions: 'Answer as Acme support.', use_model: false, speech_provider: false });
    expect(settings.attachment_limits).toMatchObject({ log_files: { count: 2, max_bytes: 500000 }, images: { count: 5, max_bytes: 5000000 } });

    expect((await cli('speech', 'docs', 'on')).code).toBe(0);
    const shown = JSON.parse((await cli('settings', 'docs', '--json')).stdout) as typeof settings;
    expect(shown).toMatchObject({ model_instructions: 'Answer as Acme support.', use_model: false, speech_provider: true });
  });

  it('refuses bad values with a usage message and changes nothing', async () => {
    for (const args of [
      ['--use-model', 'maybe'],
      ['--attachment-limit', 'videos=1x10'],
      ['--attachment-limit', 'images=99x10'],
      ['--model-instructions', 'x'.repeat(4001)],
    ]) {
      const result = await cli('settings', 'docs', ...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
    }
    expect((await cli('settings', 'docs')).stdout).toMatch(/use model\s+off/);
  });

  it("keeps limits within the operator's ceiling, GURU_ATTACHMENT_CEILING (by default the default limits)", async () => {
    const refused = await cli('settings', 'docs', '--attachment-limit', 'images=6x5000000');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("attachment_limits.images.count must be at most 5 on this server (its operator's ceiling), not 6");
    expect(refused.stderr).toContain('GURU_ATTACHMENT_CEILING');
    const raised = await runCli(['settings', 'docs', '--attachment-limit', 'images=6x5000000', '--json', '--data-dir', dataDir], { env: { GURU_ATTACHMENT_CEILING: 'images=10x5000000' } });
    expect(raised.code).toBe(0);
    expect((JSON.parse(raised.stdout) as { attachment_limits: { images: unknown } }).attachment_limits.images).toEqual({ count: 6, max_bytes: 5_000_000 });
    // Lowered again (the default), the stored 6 is taken as 5.
    expect((await cli('settings', 'docs')).stdout).toMatch(/attachments: images\s+5 of at most 5000000 bytes/);
  });

  it('names an unknown guru', async () => {
    const result = await cli('settings', 'nope');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('nope');
  });
});
