import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

let dataDir: string;
const data = () => ['--data-dir', dataDir];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-gurus-'));
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('guru-mcp guru / key', () => {
  let apiKey: string;

  it('guru create --json prints slug, name and the API key', async () => {
    const result = await runCli(['guru', 'create', 'docs', '--name', 'Product docs', '--json', ...data()]);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as { slug: string; name: string; api_key: string };
    expect(Object.keys(created).sort()).toEqual(['api_key', 'name', 'slug']);
    expect(created).toMatchObject({ slug: 'docs', name: 'Product docs' });
    expect(created.api_key.length).toBeGreaterThan(20);
    apiKey = created.api_key;
  });

  it('guru create without --json shows the key once with a warning to keep it', async () => {
    const result = await runCli(['guru', 'create', 'support', ...data()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Created guru support \(support\)/);
    expect(result.stdout).toMatch(/API key: \S{20,}/);
    expect(result.stdout).toMatch(/shown only once/);
  });

  it('guru list shows the gurus and never a key', async () => {
    const text = await runCli(['guru', 'list', ...data()]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^docs\s+Product docs\s+\d{4}-/m);
    expect(text.stdout).toMatch(/^support\s+support\s+/m);
    expect(text.stdout).not.toContain(apiKey);

    const json = await runCli(['guru', 'list', '--json', ...data()]);
    expect(json.code).toBe(0);
    const gurus = JSON.parse(json.stdout) as { slug: string; name: string }[];
    expect(gurus.map((guru) => guru.slug).sort()).toEqual(['docs', 'support']);
    expect(json.stdout).not.toContain(apiKey);
    expect(json.stdout).not.toContain('api_key');
  });

  it('global options may come before the command words', async () => {
    const result = await runCli(['--data-dir', dataDir, 'guru', '--json', 'list']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as unknown[]).length).toBe(2);
  });

  it('GURU_DATA_DIR selects the data directory when no flag does', async () => {
    const result = await runCli(['guru', 'list', '--json'], { env: { GURU_DATA_DIR: dataDir } });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as unknown[]).length).toBe(2);
  });

  it('key create adds a new, different key', async () => {
    const result = await runCli(['key', 'create', 'docs', '--json', ...data()]);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as { slug: string; api_key: string };
    expect(Object.keys(created).sort()).toEqual(['api_key', 'slug']);
    expect(created.slug).toBe('docs');
    expect(created.api_key).not.toBe(apiKey);

    const text = await runCli(['key', 'create', 'docs', ...data()]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/New API key for docs: \S{20,}/);
  });

  it('an existing slug or an unknown guru is an error with exit code 1 and no stack trace', async () => {
    const duplicate = await runCli(['guru', 'create', 'docs', ...data()]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/^guru-mcp: /);
    expect(duplicate.stderr).not.toMatch(/\n\s+at /);

    const unknown = await runCli(['key', 'create', 'nope', ...data()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/nope/);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
  });
});
