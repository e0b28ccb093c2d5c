/**
 * The guru slug left out: the default guru (setting, environment or flag), else
 * the only guru; and how a slug is told from the command's own arguments.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

let dir: string;
let dataDir: string;
const cli = (args: readonly string[], env: Record<string, string> = {}) => runCli([...args, '--data-dir', dataDir], { env });

interface Answer {
  question: string;
  session_id: string;
  references: { title: string }[];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-default-'));
  dataDir = join(dir, 'data');
  writeFileSync(join(dir, 'vacuum.md'), '# VACUUM\n\nVACUUM reclaims the storage held by dead tuples. Run it after large deletes.\n');
  writeFileSync(join(dir, 'keys.md'), '# API keys\n\nRotate an API key with the key create command.\n');
  for (const slug of ['pg', 'docs']) expect((await cli(['guru', 'create', slug])).code).toBe(0);
  expect((await cli(['add', 'pg', join(dir, 'vacuum.md')])).code).toBe(0);
  expect((await cli(['add', 'docs', join(dir, 'keys.md')])).code).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a default guru', () => {
  it('takes every word of the question as the question, from the environment or the flag', async () => {
    for (const [args, env] of [
      [['ask', 'What', 'is', 'VACUUM?', '--json'], { GURU_DEFAULT_GURU: 'pg' }],
      [['--default-guru', 'pg', 'ask', 'What is VACUUM?', '--json'], {}],
    ] as const) {
      const result = await cli(args, env);
      expect(result.code, result.stderr).toBe(0);
      const answer = JSON.parse(result.stdout) as Answer;
      expect(answer.question).toBe('What is VACUUM?');
      expect(answer.references.map((reference) => reference.title)).toEqual(['vacuum.md']);
    }
  });

  it('still lets the first argument name another guru that exists', async () => {
    const result = await cli(['ask', 'docs', 'How', 'do', 'I', 'rotate', 'an', 'API', 'key?'], { GURU_DEFAULT_GURU: 'pg' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('keys.md');
    expect(result.stdout).toMatch(/^Follow up: guru-mcp ask docs --session /m);
    // A slug with nothing after it is a usage error, not a one-word question.
    const bare = await cli(['ask', 'docs'], { GURU_DEFAULT_GURU: 'pg' });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('guru-mcp: missing <question>');
  });

  it('tells a slug by the count of arguments where the command takes a fixed number', async () => {
    const env = { GURU_DEFAULT_GURU: 'pg' };
    const implied = await cli(['sources', '--json'], env);
    expect(JSON.parse(implied.stdout)).toMatchObject({ count: 1, results: [{ title: 'vacuum.md' }] });
    const named = await cli(['sources', 'docs', '--json'], env);
    expect(JSON.parse(named.stdout)).toMatchObject({ count: 1, results: [{ title: 'keys.md' }] });
    const search = await cli(['search', 'dead', 'tuples', '--json'], env);
    expect(JSON.parse(search.stdout)).toMatchObject({ sources: [{ title: 'vacuum.md' }] });
    const tooMany = await cli(['crawl-status', 'pg', '1', '2'], env);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain('unexpected argument "2"');
  });
});

describe('without a default guru', () => {
  it('among several gurus, the first argument is the slug, as always', async () => {
    const result = await cli(['ask', 'What', 'is', 'VACUUM?']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('guru-mcp: Guru type What not found');
    const missing = await cli(['sources']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('guru-mcp: missing <slug>: name the guru, or set a default guru (--default-guru SLUG or GURU_DEFAULT_GURU)');
  });

  it('uses the only guru there is, as the MCP tools do; with none, says how to create one', async () => {
    const single = join(dir, 'single');
    const run = (args: readonly string[]) => runCli([...args, '--data-dir', single]);
    const none = await run(['ask', 'What', 'is', 'VACUUM?']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('guru-mcp: No guru exists yet.\nhint: Create one with: ');
    expect(none.stderr).toMatch(/guru create <slug> --data-dir \S+single/);

    expect((await run(['guru', 'create', 'pg'])).code).toBe(0);
    expect((await run(['add', join(dir, 'vacuum.md')])).code).toBe(0);
    const answer = await run(['ask', 'What is VACUUM?', '--json']);
    expect(answer.code, answer.stderr).toBe(0);
    expect((JSON.parse(answer.stdout) as Answer).question).toBe('What is VACUUM?');
  });
});

describe('guru-mcp session and session-delete', () => {
  it('show a conversation readably or as the spec shape, then delete it', async () => {
    const env = { GURU_DEFAULT_GURU: 'pg' };
    const first = JSON.parse((await cli(['ask', 'What is VACUUM?', '--json'], env)).stdout) as Answer;
    const followUp = await cli(['ask', '--session', first.session_id, 'When should I run it?'], env);
    expect(followUp.code, followUp.stderr).toBe(0);

    const text = await cli(['session', first.session_id], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^Session ${first.session_id}: 2 questions, started \\S+, last used \\S+$`, 'm'));
    expect(text.stdout).toMatch(/^\[1\] \S+\nQ: What is VACUUM\?\n\n[^]*VACUUM reclaims the storage/m);
    expect(text.stdout).toMatch(/^\[2\] \S+\nQ: When should I run it\?$/m);
    expect(text.stdout).toMatch(/^Trust score: \d+\/100\nReferences:\n {2}1\. vacuum\.md$/m);
    // A pipe gets the answers' Markdown as it is.
    expect(text.stdout).toContain('**');

    const json = await cli(['session', 'pg', first.session_id, '--json']);
    const session = JSON.parse(json.stdout) as Record<string, unknown> & { conversation: Record<string, unknown>[] };
    expect(Object.keys(session).sort()).toEqual(['binge_id', 'conversation', 'date_created', 'last_used', 'root_question_slug']);
    expect(session.binge_id).toBe(first.session_id);
    expect(session.conversation.map((turn) => turn.user_question)).toEqual(['What is VACUUM?', 'When should I run it?']);

    const deleted = await cli(['session-delete', first.session_id, '--json'], env);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ msg: 'Session deleted successfully', session_id: first.session_id });
    const again = await cli(['session-delete', 'pg', first.session_id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('guru-mcp: Session is already deleted');
    const gone = await cli(['session', 'pg', first.session_id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^guru-mcp: /);
  });
});
