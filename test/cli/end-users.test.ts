/** `guru-mcp enduser show|erase` and `profiles upsert`, driving the built bin over a real data directory. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runOnTerminal } from './run-cli.js';

const USER = 'cli-user-42';
let dataDir: string;
const data = () => ['--data-dir', dataDir];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-endusers-'));
  expect((await runCli(['guru', 'create', 'docs', ...data()])).code).toBe(0);
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('guru-mcp profiles / enduser', () => {
  it('profiles upsert reads a file, prints a row per user, and exits 1 when a user failed', async () => {
    const file = join(dataDir, 'profiles.json');
    writeFileSync(file, JSON.stringify({ users: [{ external_user_id: USER, memory: { plan: 'pro' } }] }));
    const saved = await runCli(['profiles', 'upsert', 'docs', file, ...data()]);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toMatch(new RegExp(`^0\\s+${USER}\\s+saved$`, 'm'));
    expect(saved.stdout).toContain('Saved 1 of 1 profile(s).');

    const partly = await runCli(['profiles', 'upsert', 'docs', '-', '--json', ...data()], {
      input: JSON.stringify([{ external_user_id: 'fine', memory: {} }, { external_user_id: 'broken' }]),
    });
    expect(partly.code).toBe(1);
    expect(JSON.parse(partly.stdout)).toMatchObject({ error: 'Failed to process some users', details: ['User 1: memory is required'] });

    const notJson = await runCli(['profiles', 'upsert', 'docs', '-', ...data()], { input: 'users: nope' });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('guru-mcp: stdin is not JSON');
  });

  it('enduser show prints the profile and the searches, and --json the whole bundle', async () => {
    const text = await runCli(['enduser', 'show', 'docs', USER, ...data()]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`End user ${USER}`);
    expect(text.stdout).toMatch(/Profile:\n {2}\{"plan":"pro"\}/);
    const json = await runCli(['enduser', 'show', 'docs', USER, '--json', ...data()]);
    expect(JSON.parse(json.stdout)).toMatchObject({ external_user_id: USER, data: { profile: [{ profile_data: { plan: 'pro' } }] } });
    // The only guru is implied when no slug is given.
    const implied = await runCli(['enduser', 'show', USER, '--json', ...data()]);
    expect(JSON.parse(implied.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('enduser erase needs --yes off a terminal, then erases and prints the counts', async () => {
    const refused = await runCli(['enduser', 'erase', 'docs', USER, ...data()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('erasing needs --yes when not run on a terminal (nothing was erased)');
    expect(JSON.parse((await runCli(['enduser', 'show', 'docs', USER, '--json', ...data()])).stdout).data.profile).toHaveLength(1);

    const erased = await runCli(['enduser', 'erase', 'docs', USER, '--yes', ...data()]);
    expect(erased.code).toBe(0);
    expect(erased.stdout).toBe(
      `Erased end user ${USER} in docs: 0 questions, 0 rejected questions, 0 conversations, 0 searches, 1 profile, 0 memories, 0 attachments.\n`,
    );
    expect(JSON.parse((await runCli(['enduser', 'show', 'docs', USER, '--json', ...data()])).stdout).data.profile).toEqual([]);
  });

  it('enduser erase asks on a terminal: anything but yes erases nothing, yes erases', async () => {
    await runCli(['profiles', 'upsert', 'docs', '-', ...data()], { input: JSON.stringify([{ external_user_id: 'asked', memory: {} }]) });
    const declined = await runOnTerminal(['enduser', 'erase', 'docs', 'asked', ...data()], 'no\n');
    expect(declined.code).toBe(1);
    expect(declined.stdout).toContain('Erase everything the guru docs holds about end user asked? This cannot be undone. Type yes to erase:');
    expect(declined.stdout).toContain('guru-mcp: not erased');
    expect(JSON.parse((await runCli(['enduser', 'show', 'docs', 'asked', '--json', ...data()])).stdout).data.profile).toHaveLength(1);

    const accepted = await runOnTerminal(['enduser', 'erase', 'docs', 'asked', ...data()], 'yes\n');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('Erased end user asked in docs:');
    expect(JSON.parse((await runCli(['enduser', 'show', 'docs', 'asked', '--json', ...data()])).stdout).data.profile).toEqual([]);
  });
});
