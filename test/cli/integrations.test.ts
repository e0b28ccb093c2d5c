/**
 * `guru-mcp integration set|list|remove`, spawning the built bin: the token
 * from GURU_INTEGRATION_TOKEN, from piped stdin, and from a terminal (a real
 * pseudo-terminal through script(1)) with echo off; each checked by reading
 * sources from the Jira and Confluence stand-ins with it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConfluenceStandIn, type ConfluenceStandIn } from '../stand-ins/confluence.js';
import { startJiraStandIn, type JiraStandIn } from '../stand-ins/jira.js';
import { cleanEnv, MAIN, runCli, type CliResult } from './run-cli.js';

let dir: string;
let dataDir: string;
let jira: JiraStandIn;
let confluence: ConfluenceStandIn;

const cli = (args: readonly string[], options: { input?: string; env?: Record<string, string> } = {}) =>
  runCli([...args, '--data-dir', dataDir], { ...options, env: { GURU_ALLOW_PRIVATE_NETWORK: '1', ...options.env } });

interface Row {
  id: number;
  status: string;
  error: string;
}

/** Runs the bin on a pseudo-terminal; `answer` is typed once the output shows `prompt`. */
function runOnTerminal(args: readonly string[], prompt: string, answer: string): Promise<CliResult> {
  const command = [process.execPath, MAIN, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: cleanEnv({ GURU_ALLOW_PRIVATE_NETWORK: '1' }), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let typed = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (!typed && output.includes(prompt)) {
        typed = true;
        child.stdin.write(`${answer}\r`);
      }
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: output, stderr: '' }));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-integrations-'));
  dataDir = join(dir, 'data');
  jira = await startJiraStandIn({
    email: 'bot@frob.test',
    apiToken: 'jira-token',
    issues: [{ key: 'FROB-7', summary: 'Frobnicator crashes on wibble 9', description: 'Set *wibble* to 9 and run.', comments: [] }],
  });
  confluence = await startConfluenceStandIn({
    flavour: 'server',
    apiToken: 'tty-secret',
    pages: [{ id: '4242', spaceKey: 'OPS', title: 'Runbook', storage: '<p>Restart the quibble daemon twice.</p>' }],
  });
  expect((await cli(['guru', 'create', 'docs'])).code).toBe(0);
});

afterAll(async () => {
  await Promise.all([jira.close(), confluence.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('guru-mcp integration', () => {
  it('lists none at first', async () => {
    const result = await cli(['integration', 'list', 'docs']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('docs has no integrations. Set one with: guru-mcp integration set docs <jira|zendesk|confluence> --url URL');
  });

  it('sets Jira with the token from stdin, prints it without the token, and reads issues with it', async () => {
    const set = await cli(['integration', 'set', 'docs', 'jira', '--url', jira.baseUrl, '--email', 'bot@frob.test'], { input: 'jira-token\n' });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(new RegExp(`^jira integration of docs: ${jira.baseUrl.replaceAll('/', '\\/')} as bot@frob\\.test \\(set \\S+\\)$`, 'm'));
    expect(set.stdout + set.stderr).not.toContain('jira-token');

    const added = await cli(['add', 'docs', '--kind', 'jira', `${jira.baseUrl}/browse/FROB-7`, '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual([expect.objectContaining({ type: 'Jira', status: 'SUCCESS', name: expect.stringContaining('FROB-7') })]);
  });

  it('takes the token from GURU_INTEGRATION_TOKEN before stdin, replacing the one set before', async () => {
    const wrong = await cli(['integration', 'set', 'docs', 'jira', '--url', jira.baseUrl, '--email', 'bot@frob.test', '--json'], {
      env: { GURU_INTEGRATION_TOKEN: 'not-the-token' },
      input: 'jira-token\n',
    });
    expect(wrong.code, wrong.stderr).toBe(0);
    expect(JSON.parse(wrong.stdout)).toEqual({ kind: 'jira', base_url: jira.baseUrl, email: 'bot@frob.test', date_created: expect.any(String) });

    const sources = JSON.parse((await cli(['sources', 'docs', '--json'])).stdout) as { results: Row[] };
    const id = String(sources.results[0]!.id);
    const refused = await cli(['reindex', 'docs', id, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ results: [{ status: 'FAIL', error: expect.stringMatching(/401|authenticat/i) }] });

    const right = await cli(['integration', 'set', 'docs', 'jira', '--url', jira.baseUrl, '--email', 'bot@frob.test'], {
      env: { GURU_INTEGRATION_TOKEN: 'jira-token' },
    });
    expect(right.code).toBe(0);
    expect((await cli(['reindex', 'docs', id])).code).toBe(0);
  });

  it('asks for the token on a terminal without echoing it', async () => {
    const result = await runOnTerminal(
      ['integration', 'set', 'docs', 'confluence', '--url', confluence.baseUrl, '--data-dir', dataDir],
      '(not shown): ',
      'tty-secret',
    );
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain(`API token for confluence at ${confluence.baseUrl} (not shown): `);
    expect(result.stdout).toContain(`confluence integration of docs: ${confluence.baseUrl} (set `);
    expect(result.stdout).not.toContain('tty-secret');

    const added = await cli(['add', 'docs', '--kind', 'confluence', `${confluence.baseUrl}/pages/viewpage.action?pageId=4242`]);
    expect(added.code, added.stdout + added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^\d+\s+Confluence\s+SUCCESS\s+Runbook/m);
  });

  it('lists the integrations, never with their tokens', async () => {
    const json = await cli(['integration', 'list', 'docs', '--json']);
    const integrations = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(integrations.map((item) => item.kind).sort()).toEqual(['confluence', 'jira']);
    for (const item of integrations) expect(Object.keys(item).sort()).toEqual(['base_url', 'date_created', 'email', 'kind']);

    const table = await cli(['integration', 'list', 'docs']);
    expect(table.stdout).toMatch(/^KIND\s+URL\s+EMAIL\s+SET$/m);
    expect(table.stdout).toMatch(new RegExp(`^jira\\s+${jira.baseUrl.replaceAll('/', '\\/')}\\s+bot@frob\\.test\\s+\\S+$`, 'm'));
    expect(table.stdout + json.stdout).not.toMatch(/jira-token|tty-secret/);
  });

  it('removes an integration, and says when there is none', async () => {
    const removed = await cli(['integration', 'remove', 'docs', 'jira']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('Removed the jira integration of docs.');
    const again = await cli(['integration', 'remove', 'docs', 'jira']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('guru-mcp: docs has no jira integration');
    const refused = await cli(['add', 'docs', '--kind', 'jira', `${jira.baseUrl}/browse/FROB-7`]);
    expect(refused.stderr).toContain('Jira integration is not set up for this guru');
  });

  it('refuses a wrong command line with exit code 2, before asking for a token', async () => {
    const cases: [string[], string][] = [
      [['integration', 'set', 'docs', 'github', '--url', 'https://github.com'], 'the integration kind is one of jira, zendesk, confluence, not "github"'],
      [['integration', 'set', 'docs', 'jira'], '--url is required: the jira site, e.g. https://example.atlassian.net'],
      [['integration', 'set', 'docs', 'jira', '--url', 'example.atlassian.net'], '--url must be an http:// or https:// URL'],
      [['integration', 'set', 'docs', 'zendesk', '--url', 'https://example.zendesk.com'], '--email is required for Zendesk'],
      [['integration', 'set', 'docs', 'jira', '--url', 'https://example.atlassian.net', '--token', 'x'], 'unknown option --token'],
      [['integration', 'set', 'docs', 'jira', '--url', 'https://example.atlassian.net'], 'no token: set GURU_INTEGRATION_TOKEN, or give the token on stdin'],
      [['integration', 'remove', 'docs', 'github'], 'the integration kind is one of jira, zendesk, confluence'],
      [['integration', 'unset', 'docs'], 'unknown command "integration unset"'],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args, { input: '' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(message);
    }
  });

  it('explains itself in --help', async () => {
    const help = await cli(['integration', 'set', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: guru-mcp integration set [<slug>] <kind> [options]');
    expect(help.stdout).toContain('GURU_INTEGRATION_TOKEN');
    expect(help.stdout).toContain('--email EMAIL');
    const group = await cli(['integration', '--help']);
    expect(group.stdout).toMatch(/integration set \[<slug>\] <kind>[\s\S]*integration list \[<slug>\][\s\S]*integration remove \[<slug>\] <kind>/);
  });
});
