/** `guru-mcp sources-delete` and `guru-mcp guru delete`, driving the built bin over a real data directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { filesHolding as filesOf } from '../support/stored-rows.js';
import { runCli, runOnTerminal } from './run-cli.js';

/** No vowels: the index keeps it unstemmed, so its bytes are what is looked for in the files. */
const MARKER = 'zqxjvkwpl';

let dataDir: string;
const data = () => ['--data-dir', dataDir];
const filesHolding = (text: string) => filesOf(dataDir, text);

async function createGuru(slug: string): Promise<string> {
  const created = await runCli(['guru', 'create', slug, '--json', ...data()]);
  expect(created.code, created.stderr).toBe(0);
  return (JSON.parse(created.stdout) as { api_key: string }).api_key;
}

/** Adds a text source and waits until it is indexed (through the engine: the subject here is deleting, not adding). */
async function addText(slug: string, name: string, content: string): Promise<number> {
  const engine = await LocalEngine.open({ dataDir });
  try {
    const [created] = await engine.createDataSources(slug, { text_sources: [{ name, content }] });
    await engine.whenIdle();
    return created!.id;
  } finally {
    await engine.close();
  }
}

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-delete-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('guru-mcp sources-delete', () => {
  it('deletes the sources named, prints what went, and names the ids passed over', async () => {
    await createGuru('docs');
    await createGuru('other');
    const secret = await addText('docs', 'Secret', `The ${MARKER} opens the vault.`);
    const kept = await addText('docs', 'Kept', 'The zorblax runs nightly.');
    const theirs = await addText('other', 'Theirs', 'Plain text.');

    const deleted = await runCli(['sources-delete', 'docs', String(secret), String(theirs), ...data()]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Deleted 1 data source of docs:\n  #${secret} TEXT Secret\nNot sources of docs, passed over: ${theirs}\n`);
    expect(filesHolding(MARKER)).toEqual([]);

    const listed = JSON.parse((await runCli(['sources', 'docs', '--json', ...data()])).stdout) as { results: Array<{ id: number }> };
    expect(listed.results.map((source) => source.id)).toEqual([kept]);
    const theirsListed = JSON.parse((await runCli(['sources', 'other', '--json', ...data()])).stdout) as { results: Array<{ id: number }> };
    expect(theirsListed.results.map((source) => source.id)).toEqual([theirs]);

    const json = await runCli(['sources-delete', 'docs', String(kept), '--json', ...data()]);
    expect(JSON.parse(json.stdout)).toMatchObject({ msg: 'Data sources deleted successfully', deleted: [{ id: kept, title: 'Kept' }], passed_over: [] });
  });

  it('refuses ids that are not whole numbers, deleting nothing', async () => {
    await createGuru('docs');
    const id = await addText('docs', 'Note', 'A note.');
    const refused = await runCli(['sources-delete', 'docs', String(id), 'x1', ...data()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('source ids are whole numbers from 1');
    expect(JSON.parse((await runCli(['sources', 'docs', '--json', ...data()])).stdout).count).toBe(1);
  });
});

describe('guru-mcp guru delete', () => {
  it('needs --yes off a terminal; then deletes everything of the guru, and its key stops working', async () => {
    const key = await createGuru('docs');
    await createGuru('other');
    await addText('docs', 'Secret', `The ${MARKER} opens the vault.`);
    await runCli(['ask', 'docs', `What opens the vault ${MARKER}?`, ...data()]);
    expect(filesHolding(MARKER)).not.toEqual([]);

    const refused = await runCli(['guru', 'delete', 'docs', ...data()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('deleting needs --yes when not run on a terminal (nothing was deleted)');

    const deleted = await runCli(['guru', 'delete', 'docs', '--yes', ...data()]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('Deleted guru docs: 1 data sources, 1 sessions, 1 questions, 0 crawls, 1 api keys. Its API keys no longer work.\n');
    expect(filesHolding(MARKER)).toEqual([]);
    expect(JSON.parse((await runCli(['guru', 'list', '--json', ...data()])).stdout)).toEqual([expect.objectContaining({ slug: 'other' })]);

    const engine = await LocalEngine.open({ dataDir, processQueue: false });
    try {
      expect(await engine.authenticate(key)).toBeUndefined();
    } finally {
      await engine.close();
    }
    const again = await runCli(['guru', 'delete', 'docs', '--yes', ...data()]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Guru type docs not found');
  });

  it('asks on a terminal: anything but yes deletes nothing, yes deletes', async () => {
    await createGuru('docs');
    const declined = await runOnTerminal(['guru', 'delete', 'docs', ...data()], 'no\n');
    expect(declined.code).toBe(1);
    expect(declined.stdout).toContain('Delete the guru docs with all its sources, sessions, answers and end-user data?');
    expect(declined.stdout).toContain('guru-mcp: not deleted');
    expect(JSON.parse((await runCli(['guru', 'list', '--json', ...data()])).stdout)).toHaveLength(1);

    const accepted = await runOnTerminal(['guru', 'delete', 'docs', ...data()], 'yes\n');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('Deleted guru docs:');
    expect(JSON.parse((await runCli(['guru', 'list', '--json', ...data()])).stdout)).toEqual([]);
  });
});
