/**
 * `crawl`, `crawl-status` and `crawl-stop`, spawning the built bin against a
 * loopback site: the result and the progress line, --add with the per-source
 * rows, Ctrl-C stopping the crawl, and --no-wait over the remote backend.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Crawl } from '../../src/core/schemas.js';
import { redirect, respond, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { startHostedServer, type HostedServer } from './hosted-server.js';
import { cleanEnv, MAIN, runCli, type CliResult } from './run-cli.js';

const page = (title: string, links: readonly string[] = []) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>All about the ${title.toLowerCase()} of the frobnicator.</p>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</main></body></html>`;

interface Row {
  id: number;
  type: string;
  name: string;
  url?: string;
  status: string;
  error: string;
}

let dir: string;
let dataDir: string;
let site: LoopbackServer;
/** Responses of /held/ kept open, so that a crawl of it stays RUNNING. */
const held: ServerResponse[] = [];

const env = { GURU_ALLOW_PRIVATE_NETWORK: '1' };
const cli = (args: readonly string[]) => runCli([...args, '--data-dir', dataDir], { env });
const paths = (urls: readonly string[]) => urls.map((url) => url.slice(site.origin.length)).sort();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-crawls-'));
  dataDir = join(dir, 'data');
  site = await startLoopbackServer({
    '/docs/': respond(page('Docs', ['install', 'guide/', 'list?page=1', '/blog/news', 'logo.png'])),
    '/docs/install': respond(page('Install', ['/docs/'])),
    '/docs/guide/': respond(page('Guide', ['../install'])),
    // Like most servers, this one redirects a directory's address without its slash.
    '/docs': redirect('/docs/', 301),
    '/docs/guide': redirect('/docs/guide/', 301),
    '/docs/list': respond(page('List', ['/docs/list?page=2'])),
    '/blog/news': respond(page('News')),
    '/held/': (_request, response) => {
      held.push(response);
    },
  });
  for (const slug of ['docs', 'pages']) {
    const created = await cli(['guru', 'create', slug]);
    expect(created.code, created.stderr).toBe(0);
  }
});

afterEach(() => {
  for (const response of held.splice(0)) response.destroy();
});

afterAll(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('guru-mcp crawl', () => {
  it('prints the status and every URL found, showing the count on stderr meanwhile', async () => {
    const result = await cli(['crawl', 'docs', site.url('/docs/')]);
    expect(result.code, result.stderr).toBe(0);
    const [status, ...urls] = result.stdout.trimEnd().split('\n');
    expect(status).toMatch(new RegExp(`^Crawl \\d+ COMPLETED: 4 URLs discovered under ${site.url('/docs/')} \\(query strings ignored\\)$`));
    expect(paths(urls)).toEqual(['/docs/', '/docs/guide/', '/docs/install', '/docs/list']);
    expect(result.stderr).toContain(`Crawling ${site.url('/docs/')}: 4 URLs discovered\n`);
    expect(result.stderr).not.toContain('guru-mcp:');
  });

  it('keeps query strings with --keep-query and prints the crawl object with --json', async () => {
    const result = await cli(['crawl', 'docs', site.url('/docs/'), '--keep-query', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const crawl = Crawl.parse(JSON.parse(result.stdout));
    expect(crawl).toMatchObject({ status: 'COMPLETED', guru_type: 'docs', ignore_query_params: false, end_time: expect.any(String) });
    expect(paths(crawl.discovered_urls)).toEqual(['/docs/', '/docs/guide/', '/docs/install', '/docs/list?page=1', '/docs/list?page=2']);

    const status = await cli(['crawl-status', 'docs', String(crawl.id), '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual(crawl);
    const text = await cli(['crawl-status', 'docs', String(crawl.id)]);
    expect(text.stdout.split('\n')[0]).toBe(`Crawl ${crawl.id} COMPLETED: 5 URLs discovered under ${site.url('/docs/')} (query strings kept)`);
    // Stopping a crawl that has ended shows it as it is.
    const stopped = await cli(['crawl-stop', 'docs', String(crawl.id), '--json']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual(crawl);
  });

  it('adds the pages with --add, waits for them, and prints one row per source', async () => {
    const result = await cli(['crawl', 'pages', site.url('/docs/'), '--add']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Crawl \d+ COMPLETED: 4 URLs discovered under /);
    expect(lines[1]).toMatch(/^ID\s+TYPE\s+STATUS\s+NAME\s+ERROR$/);
    expect(lines.slice(2)).toHaveLength(4);
    expect(lines.slice(2).every((line) => /^\d+\s+Website\s+SUCCESS\s+/.test(line))).toBe(true);
    expect(result.stdout).toContain('Install');
    expect(result.stderr).toContain('Processing: 4/4');

    // The second time every page is there already.
    const again = await cli(['crawl', 'pages', site.url('/docs/'), '--add', '--json']);
    expect(again.code, again.stderr).toBe(0);
    const { crawl, sources, refused } = JSON.parse(again.stdout) as { crawl: Crawl; sources: Row[]; refused: unknown };
    expect(crawl.status).toBe('COMPLETED');
    expect(refused).toBeNull();
    expect(sources.map((row) => [row.type, row.status])).toEqual(Array(4).fill(['Website', 'SUCCESS']));
    expect(new Set(sources.map((row) => row.id))).toEqual(new Set(lines.slice(2).map((line) => Number(line.split(/\s+/)[0]))));
  });

  it('exits with 1 and says how a crawl that failed ended, its error once', async () => {
    const result = await cli(['crawl', 'docs', site.url('/missing/')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Crawl \d+ FAILED: 0 URLs discovered under /);
    expect(result.stderr).toMatch(/guru-mcp: crawl \d+ ended FAILED: Could not crawl/);
    expect(`${result.stdout}${result.stderr}`.match(/Could not crawl/g)).toHaveLength(1);

    // crawl-status, which succeeds, still shows the error with the crawl.
    const id = /^Crawl (\d+) FAILED/.exec(result.stdout)![1]!;
    const status = await cli(['crawl-status', 'docs', id]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Error: Could not crawl');
  });

  it('stops the crawl on Ctrl-C and exits with 130, keeping what was found', async () => {
    const child = spawn(process.execPath, [MAIN, 'crawl', 'docs', site.url('/held/'), '--data-dir', dataDir], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    // The counter's first line comes after the crawl started and was looked at.
    const counting = new Promise<void>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('Crawling ')) resolve();
      });
    });
    await Promise.race([counting, closed]);
    expect(stderr).toContain(`Crawling ${site.url('/held/')}: 0 URLs discovered`);
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    const id = /^Crawl (\d+) STOPPED: 0 URLs discovered under /.exec(stdout)?.[1];
    expect(id, stdout).toBeDefined();
    // The hint names the command as it was run: here `node` and the script, from the project directory.
    expect(stderr).toContain(`guru-mcp: interrupted: crawl ${id} STOPPED; the 0 URLs found so far are kept (node dist/bin/guru-mcp.js crawl-status docs ${id} --data-dir ${dataDir})`);

    const status = await cli(['crawl-status', 'docs', id!, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: Number(id), status: 'STOPPED' });
  });

  it('refuses --no-wait on the embedded engine, which crawls inside the command', async () => {
    const result = await cli(['crawl', 'docs', site.url('/docs/'), '--no-wait']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('guru-mcp: --no-wait needs a server to run the crawl');
    expect(result.stderr).toContain('hint: The embedded engine crawls inside this command');
  });

  it.each<[string[], string, string]>([
    [['crawl', 'docs', 'https://example.com/', '--add', '--no-wait'], '--add adds the pages once the crawl has ended; leave out --no-wait', 'crawl'],
    [['crawl', 'docs'], 'missing <url>', 'crawl'],
    [['crawl-status', 'docs', 'abc'], 'crawl ids are whole numbers from 1 (as printed by guru-mcp crawl), not "abc"', 'crawl-status'],
    [['crawl-stop', 'docs', '0'], 'crawl ids are whole numbers from 1 (as printed by guru-mcp crawl), not "0"', 'crawl-stop'],
  ])('guru-mcp %j is a usage error', async (args, message, command) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`guru-mcp: ${message}`);
    expect(result.stderr).toContain(`Run 'guru-mcp ${command} --help' for usage.`);
  });

  it("answers the service's errors with exit code 1", async () => {
    const unknown = await cli(['crawl-status', 'docs', '424242']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('guru-mcp: Crawl not found');
    const invalid = await cli(['crawl', 'docs', 'ftp://example.com/']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('guru-mcp: Invalid URL format\nhint: Pass an absolute http:// or https:// URL');
  });
});

describe('crawls over the remote backend', () => {
  let hosted: HostedServer;

  beforeAll(async () => {
    hosted = await startHostedServer({ allowPrivateNetwork: true });
  });

  afterAll(() => hosted.close());

  const remote = (args: readonly string[]): Promise<CliResult> => runCli([...args, '--data-dir', dataDir], { env: hosted.env });

  it('starts a crawl on the server with --no-wait, follows it with crawl-status and stops it with crawl-stop', async () => {
    const started = await remote(['crawl', 'hosted', site.url('/held/'), '--no-wait']);
    expect(started.code, started.stderr).toBe(0);
    const id = /^Crawl (\d+) RUNNING: 0 URLs discovered so far under /.exec(started.stdout)?.[1];
    expect(id, started.stdout).toBeDefined();
    expect(started.stdout).toContain(`Follow it: guru-mcp crawl-status hosted ${id} --data-dir ${dataDir}    Stop it: guru-mcp crawl-stop hosted ${id} --data-dir ${dataDir}`);

    const status = await remote(['crawl-status', 'hosted', id!, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: Number(id), status: 'RUNNING', end_time: null });

    const stopped = await remote(['crawl-stop', 'hosted', id!]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(new RegExp(`^Crawl ${id} STOPPED: 0 URLs discovered under `));
    expect(await hosted.backend.assistant.crawlStatus('hosted', Number(id))).toMatchObject({ status: 'STOPPED' });
  });

  it('crawls and adds the pages on the server', async () => {
    const result = await remote(['crawl', 'hosted', site.url('/docs/'), '--add', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { crawl, sources } = JSON.parse(result.stdout) as { crawl: Crawl; sources: Row[] };
    expect(crawl.discovered_urls).toHaveLength(4);
    expect(sources.map((row) => row.status)).toEqual(Array(4).fill('SUCCESS'));
    expect((await hosted.backend.assistant.listDataSources('hosted', { page: 1, page_size: 10 })).count).toBe(4);
  });
});
