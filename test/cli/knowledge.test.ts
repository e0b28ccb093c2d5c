import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { SessionConversation } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { cleanEnv, runCli } from './run-cli.js';

let dir: string;
let dataDir: string;
const data = () => ['--data-dir', dataDir];

const KEYS_DOC = `# API keys

Rotate an API key with the key create command. Old keys keep working until they are revoked.

## Revoking keys

Revoke a key by deleting it on the admin page of the guru.
`;

/** Reads a session straight from the engine the CLI wrote to. */
async function readSession(sessionId: string): Promise<SessionConversation> {
  const backend = await openBackend(loadConfig({ env: cleanEnv(), flags: { dataDir } }), silentLogger);
  try {
    return await backend.assistant.getSession('docs', sessionId);
  } finally {
    await backend.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-knowledge-'));
  dataDir = join(dir, 'data');
  writeFileSync(join(dir, 'keys.md'), KEYS_DOC);
  writeFileSync(join(dir, 'crawling.txt'), 'The crawler follows links below the root URL and stops after 1500 pages.\n');
  writeFileSync(join(dir, 'empty.txt'), '  \n');
  const created = await runCli(['guru', 'create', 'docs', ...data()]);
  expect(created.code).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('guru-mcp add', () => {
  it('adds files as text sources named after them and waits until they are processed', async () => {
    const result = await runCli(['add', 'docs', join(dir, 'keys.md'), join(dir, 'crawling.txt'), '--label', 'manual', ...data()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ID\s+TYPE\s+STATUS\s+NAME/);
    expect(result.stdout).toMatch(/^\d+\s+Text\s+SUCCESS\s+keys\.md\s*$/m);
    expect(result.stdout).toMatch(/^\d+\s+Text\s+SUCCESS\s+crawling\.txt\s*$/m);
    // stderr is no terminal here: progress comes as plain lines, ending at the total.
    expect(result.stderr).toMatch(/^Processing: 0\/2$/m);
    expect(result.stderr).toMatch(/^Processing: 2\/2$/m);
    expect(result.stderr).not.toContain('\r');
  });

  it('adds a source from stdin under --name', async () => {
    const result = await runCli(['add', 'docs', '--name', 'Billing', '--json', ...data()], {
      input: 'Invoices are sent monthly, on the first working day.\n',
    });
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as { id: number; name: string; status: string; error: string }[];
    expect(rows).toEqual([{ id: expect.any(Number), type: 'Text', name: 'Billing', status: 'SUCCESS', error: '', added: 'success' }]);
  });

  it('--no-wait returns once the sources are accepted', async () => {
    const result = await runCli(['add', 'docs', '--name', 'Support hours', '--no-wait', '--json', ...data()], {
      input: 'Support answers on weekdays from nine to five.\n',
    });
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as { name: string; status: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.name).toBe('Support hours');
    expect(result.stderr).not.toContain('Processing');
  });

  it('refuses stdin without --name, --name with several files, missing and empty files', async () => {
    const noName = await runCli(['add', 'docs', ...data()], { input: 'text' });
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('needs --name NAME');
    expect(noName.stderr).toContain("guru-mcp add --help");

    const twoFiles = await runCli(['add', 'docs', join(dir, 'keys.md'), join(dir, 'crawling.txt'), '--name', 'x', ...data()]);
    expect(twoFiles.code).toBe(2);

    const missing = await runCli(['add', 'docs', join(dir, 'missing.txt'), ...data()]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('missing.txt: no such file');

    const empty = await runCli(['add', 'docs', join(dir, 'empty.txt'), ...data()]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('empty.txt is empty');
  });
});

describe('guru-mcp search', () => {
  it('finds the related sources, as text and as JSON', async () => {
    const text = await runCli(['search', 'docs', 'how', 'do', 'I', 'rotate', 'a', 'key', ...data()]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^1\. keys\.md$/m);
    // Without an embeddings provider the search is by words, and says so.
    expect(text.stdout).toMatch(/^\d+ sources? \(lexical search\):$/m);
    expect(text.stdout).toMatch(/labels: .*manual/);

    const json = await runCli(['search', 'docs', 'rotate key', '--json', ...data()]);
    const response = JSON.parse(json.stdout) as { sources: { title: string }[]; total_sources: number };
    expect(response.sources.map((source) => source.title)).toContain('keys.md');
    expect(response.total_sources).toBe(response.sources.length);
  });

  it('--label keeps only the sources with that label', async () => {
    const unlabelled = await runCli(['search', 'docs', 'invoices monthly', '--json', ...data()]);
    const all = (JSON.parse(unlabelled.stdout) as { sources: { title: string }[] }).sources.map((source) => source.title);
    expect(all).toContain('Billing');

    const labelled = await runCli(['search', 'docs', 'invoices monthly', '--label', 'manual', '--json', ...data()]);
    const titles = (JSON.parse(labelled.stdout) as { sources: { title: string }[] }).sources.map((source) => source.title);
    expect(titles).not.toContain('Billing');

    const none = await runCli(['search', 'docs', 'rotate key', '--label', 'no-such-label', ...data()]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('No matching sources.\n');
  });
});

describe('guru-mcp ask', () => {
  let sessionId: string;

  it('prints the answer text, its trust score, references and session id', async () => {
    const result = await runCli(['ask', 'docs', 'How do I rotate an API key?', ...data()]);
    expect(result.code).toBe(0);
    const session = /^Session: (\S+)$/m.exec(result.stdout)?.[1];
    expect(session).toBeDefined();
    sessionId = session!;
    const stored = await readSession(sessionId);
    expect(stored.conversation).toHaveLength(1);
    expect(result.stdout.startsWith(stored.conversation[0]!.answer)).toBe(true);
    expect(result.stdout).toMatch(/^Trust score: \d+\/100$/m);
    expect(result.stdout).toMatch(/^References:\n {2}1\. keys\.md/m);
    expect(result.stdout).toContain(`guru-mcp ask docs --session ${sessionId}`);
  });

  it('--session continues the same conversation', async () => {
    const result = await runCli(['ask', 'docs', '--session', sessionId, 'And how do I revoke one?', '--json', ...data()]);
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as { session_id: string; content: string; question: string };
    expect(answer.session_id).toBe(sessionId);
    const stored = await readSession(sessionId);
    expect(stored.conversation.map((turn) => turn.user_question)).toEqual(['How do I rotate an API key?', 'And how do I revoke one?']);
    expect(stored.conversation[1]!.answer).toBe(answer.content);
  });

  it('an unknown session or guru is the service error with its hint, exit code 1', async () => {
    const session = await runCli(['ask', 'docs', '--session', 'no-such-session', 'hello', ...data()]);
    expect(session.code).toBe(1);
    expect(session.stderr).toContain('guru-mcp: Session no-such-session not found\nhint: ');
    expect(session.stdout).toBe('');

    // Named by count: `sessions` takes nothing else, so "nope" can only be a slug.
    const guru = await runCli(['sessions', 'nope', ...data()]);
    expect(guru.code).toBe(1);
    expect(guru.stderr).toContain('guru-mcp: Guru type nope not found\nhint: ');
    expect(guru.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('guru-mcp sessions', () => {
  it('lists the sessions of a guru', async () => {
    const json = await runCli(['sessions', 'docs', '--json', ...data()]);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as { today: { id: string; root_question_name: string }[] };
    expect(list.today).toHaveLength(1);

    const text = await runCli(['sessions', 'docs', ...data()]);
    expect(text.stdout).toMatch(/^Today:$/m);
    expect(text.stdout).toContain(list.today[0]!.id);
  });
});
