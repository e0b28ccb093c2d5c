/** The command line itself: help, version, and the errors of a wrong command line. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from './run-cli.js';

let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-commands-'));
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('help and version', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli(['--version']);
    expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('--help and help list every command', async () => {
    for (const args of [['--help'], ['help'], ['-h']]) {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      for (const command of ['stdio', 'serve', 'guru create <slug>', 'guru list', 'key create [<slug>]', 'add [<slug>]', 'search [<slug>]', 'ask [<slug>]', 'sessions [<slug>]', 'session [<slug>] <id>', 'session-delete [<slug>] <id>']) {
        expect(result.stdout).toContain(`  ${command}`);
      }
      expect(result.stdout).toContain('--data-dir DIR');
      expect(result.stdout).toContain('--llm-url URL');
      expect(result.stdout).toContain('--llm-model NAME');
    }
  });

  it('every command has its own help', async () => {
    const ask = await runCli(['ask', '--help']);
    expect(ask.code).toBe(0);
    expect(ask.stdout).toMatch(/^Usage: guru-mcp ask \[<slug>\] <question\.\.\.> \[options\]/);
    expect(ask.stdout).toContain('The first argument is read as the slug only when a guru of that name exists');
    expect(ask.stdout).toContain('--session ID');
    expect(ask.stdout).toContain('--data-dir DIR');

    // Only the common options it uses.
    const migrate = await runCli(['migrate', '--help']);
    expect(migrate.stdout).toContain('--database-url URL');
    expect(migrate.stdout).toContain('--data-dir DIR');
    expect(migrate.stdout).not.toMatch(/--backend|--api-url|--llm-|--default-guru/);

    const create = await runCli(['help', 'guru', 'create']);
    expect(create.stdout).toMatch(/^Usage: guru-mcp guru create <slug> \[options\]/);
    expect(create.stdout).toContain('--name NAME');

    const serve = await runCli(['serve', '-h']);
    expect(serve.stdout).toContain('--port PORT');

    const group = await runCli(['guru', '--help']);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('guru create <slug>');
    expect(group.stdout).toContain('guru list');
  });
});

describe('a wrong command line exits with 2 and names the fix', () => {
  const cases: { args: string[]; message: string; help: string }[] = [
    { args: ['frobnicate'], message: 'unknown command "frobnicate"', help: 'guru-mcp --help' },
    { args: ['guru'], message: '"guru" needs a subcommand', help: 'guru-mcp guru --help' },
    { args: ['guru', 'rename', 'x'], message: 'unknown command "guru rename"', help: 'guru-mcp guru --help' },
    { args: ['ask'], message: 'missing <question>', help: 'guru-mcp ask --help' },
    { args: ['guru', 'create'], message: 'missing <slug>', help: 'guru-mcp guru create --help' },
    { args: ['guru', 'list', 'extra'], message: 'unexpected argument "extra"', help: 'guru-mcp guru list --help' },
    { args: ['search', 'docs', 'q', '--frob'], message: 'unknown option --frob', help: 'guru-mcp search --help' },
    { args: ['migrate', '--backend', 'remote'], message: 'option --backend does not apply to migrate', help: 'guru-mcp migrate --help' },
    { args: ['ask', 'docs', 'q', '--session'], message: 'option --session needs a value', help: 'guru-mcp ask --help' },
    { args: ['serve', '--port', 'abc'], message: '--port must be a whole number from 0 to 65535, not "abc"', help: 'guru-mcp serve --help' },
    { args: ['guru', 'create', 'Not A Slug'], message: 'invalid slug "Not A Slug"', help: 'guru-mcp guru create --help' },
    { args: ['sessions', 'docs', '--page', 'two'], message: '--page must be a positive whole number', help: 'guru-mcp sessions --help' },
    { args: ['serve', '--log-level', 'loud'], message: 'Invalid settings:\n  logLevel (--log-level): Invalid option', help: 'guru-mcp serve --help' },
    { args: ['help', 'nope'], message: 'unknown command "nope"', help: 'guru-mcp --help' },
    {
      args: ['serve', '--redis-url', 'http://127.0.0.1:6379'],
      message: 'Invalid settings:\n  redisUrl (--redis-url): must be a redis:// or rediss:// URL',
      help: 'guru-mcp serve --help',
    },
    {
      args: ['guru', 'list', '--database-url', 'mysql://127.0.0.1:3306/guru'],
      message: 'Invalid settings:\n  databaseUrl (--database-url): must be a postgres:// or postgresql:// URL',
      help: 'guru-mcp guru list --help',
    },
    {
      args: ['guru', 'list', '--llm-url', 'ftp://models.example/v1', '--llm-model', 'llama3.2'],
      message: 'Invalid settings:\n  llmUrl (--llm-url): must be an http:// or https:// API root',
      help: 'guru-mcp guru list --help',
    },
    {
      args: ['guru', 'list', '--llm-url', 'http://127.0.0.1:11434/v1'],
      message: 'Invalid settings:\n  llmModel (GURU_LLM_MODEL): required when GURU_LLM_URL is set',
      help: 'guru-mcp guru list --help',
    },
  ];

  for (const { args, message, help } of cases) {
    it(`guru-mcp ${args.join(' ')}`, async () => {
      const result = await runCli([...args, '--data-dir', dataDir]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`guru-mcp: ${message}`);
      expect(result.stderr).toContain(`Run '${help}' for usage.`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  }
});
