/**
 * Two built `guru-mcp serve` processes on one PostgreSQL (GURU_DATABASE_URL) and one Redis
 * (GURU_REDIS_URL), each with a data directory of its own holding the same secret.key, as two
 * machines would run them: every operation works through either process, each ingestion job runs
 * once, a process killed (-9) during ingestion leaves nothing lost, stuck or duplicated (the other
 * takes its jobs over: at once, since it sees the PID gone on this machine), and an MCP client whose requests alternate
 * between the two works in the stateless protocol era. PostgreSQL, Redis and the site the sources
 * are read from are real servers on loopback, started for this file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dataDirSecret } from '../../src/data-dir.js';
import { PostgresSql } from '../../src/engine/store/postgres-sql.js';
import { BIN } from '../global-setup.js';
import { newClient } from '../mcp/support.js';
import { answerOf } from '../support/mcp-answer.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { listeningOn, stop } from '../support/serve.js';

const run = promisify(execFile);

/** Pages read during the kill: enough that both processes hold several when one dies. */
const PAGES = 50;

interface Instance {
  readonly child: ChildProcess;
  readonly base: string;
}

describe('two serve processes on one PostgreSQL and Redis', () => {
  let postgres: TestPostgres;
  let redis: TestRedis;
  let site: LoopbackServer;
  let store: PostgresSql;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  let apiKey: string;
  let env: NodeJS.ProcessEnv;
  let first: Instance;
  let second: Instance;
  /** The two processes alive for the MCP tests (the first is killed before them). */
  let bases: string[] = [];
  /** Pages under /held/ are answered once this opens. */
  let openGate: () => void = () => {};
  const gate = new Promise<void>((resolve) => (openGate = resolve));

  const serve = async (dataDir: string): Promise<Instance> => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    return { child, base: await listeningOn(child) };
  };

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    site = await startLoopbackServer(async (req, res) => {
      const path = req.url ?? '/';
      const page = /^\/(once|held)\/(\d+)$/.exec(path);
      if (page === null) {
        res.writeHead(404).end();
        return;
      }
      if (page[1] === 'held') await gate;
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Page ${page[1]} ${page[2]}</title></head><body><p>The ${page[1]} okapi number ${page[2]} grazes quietly.</p></body></html>`);
    });
    env = { ...process.env, GURU_DATABASE_URL: postgres.url, GURU_REDIS_URL: redis.url, GURU_ALLOW_PRIVATE_NETWORK: '1', GURU_RATE_LIMIT_PER_MINUTE: '0' };
    const one = mkdtempSync(join(tmpdir(), 'guru-instances-'));
    const two = mkdtempSync(join(tmpdir(), 'guru-instances-'));
    dirs.push(one, two);
    const { stdout } = await run(process.execPath, [BIN, 'guru', 'create', 'docs', '--json', '--data-dir', one], { env });
    apiKey = (JSON.parse(stdout) as { api_key: string }).api_key;
    // What the second machine needs of the first's data directory: its secret.key.
    dataDirSecret(one);
    cpSync(join(one, 'secret.key'), join(two, 'secret.key'));
    [first, second] = await Promise.all([serve(one), serve(two)]);
    store = PostgresSql.connect({ url: postgres.url, poolSize: 1 });
  }, 180_000);

  afterAll(async () => {
    openGate();
    await Promise.all(children.map(stop));
    await store?.close();
    await site?.close();
    await redis?.stop();
    await postgres?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const call = async (base: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => {
    const reply = await request(`${base}/api/v1/${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON replies, read field by field
    return { status: reply.statusCode, body: (await reply.body.json()) as Record<string, any> };
  };
  const sources = async (base: string) => (await call(base, 'GET', 'docs/data-sources/?page_size=1000')).body.results as Array<{ id: number; url: string | null; status: string; title: string }>;
  /** Resolves once every source whose URL (or title) contains `part` has ended (SUCCESS or FAIL), as listed through `base`. */
  const settled = (base: string, part: string, count: number) =>
    vi.waitFor(
      async () => {
        const mine = (await sources(base)).filter((source) => (source.url ?? source.title).includes(part));
        expect(mine).toHaveLength(count);
        expect(mine.every((source) => source.status === 'SUCCESS' || source.status === 'FAIL')).toBe(true);
        return mine;
      },
      { timeout: 120_000, interval: 100 },
    );

  /** The crawl once it is no longer RUNNING, as read through `base`. */
  const crawlEnded = (base: string, id: number) =>
    vi.waitFor(
      async () => {
        const status = await call(base, 'GET', `docs/crawl/${id}/status/`);
        expect(status.body.status).not.toBe('RUNNING');
        return status.body;
      },
      { timeout: 60_000, interval: 100 },
    );
  /** A fetch for an MCP client transport that sends each request to the next of `bases` in turn (a round-robin balancer), noting where in `sent`. */
  const roundRobin = (sent: string[] = []): typeof fetch => {
    let next = 0;
    return (url, init) => {
      const base = bases[next++ % bases.length]!;
      sent.push(base);
      const target = new URL(String(url));
      return fetch(new URL(target.pathname + target.search, base), init);
    };
  };

  it('serves every operation through either process: sources, search, answers, sessions, votes, deletion, crawls', async () => {
    const urls = Array.from({ length: 10 }, (_, i) => site.url(`/once/${i}`));
    const created = await call(first.base, 'POST', 'docs/data-sources/', {
      website_urls: urls,
      text_sources: [{ name: 'Ports', content: '# Ports\n\nThe server listens on port 8080 unless GURU_PORT names another.' }],
    });
    expect(created.status).toBe(200);
    const read = await settled(second.base, '/once/', 10);
    expect(read.map((source) => source.status)).toEqual(Array(10).fill('SUCCESS'));
    await settled(second.base, 'Ports', 1);
    // Each job ran once: every page was fetched by one process, once.
    for (let i = 0; i < 10; i += 1) expect(site.requests.filter((r) => r.path === `/once/${i}`)).toHaveLength(1);

    const found = await call(second.base, 'POST', 'docs/semantic-search/', { question: 'Which port does the server listen on?' });
    expect(found.status).toBe(200);
    expect(found.body.sources.map((source: { title: string }) => source.title)).toContain('Ports');

    const answer = await call(first.base, 'POST', 'docs/answer/', { question: 'Which port does the server listen on?', stream: false });
    expect(answer.status).toBe(200);
    const sessionId = answer.body.session_id as string;
    const listed = await call(second.base, 'POST', 'docs/sessions/', {});
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(sessionId);
    expect((await call(second.base, 'POST', `sessions/${sessionId}/conversation/`)).status).toBe(200);
    const voted = await call(second.base, 'POST', 'docs/record_vote/', { content_slug: answer.body.slug, vote_type: 'upvote' });
    expect(voted.status).toBe(200);
    const follow = await call(second.base, 'POST', 'docs/answer/', { question: 'And with GURU_PORT?', stream: false, session_id: sessionId });
    expect(follow.status).toBe(200);
    expect(follow.body.session_id).toBe(sessionId);

    const ports = (await sources(first.base)).find((source) => source.title === 'Ports')!;
    expect((await call(second.base, 'DELETE', 'docs/data-sources/', { ids: [ports.id] })).status).toBe(200);
    expect((await sources(first.base)).some((source) => source.id === ports.id)).toBe(false);
    expect((await call(first.base, 'DELETE', `sessions/${sessionId}/delete/`)).status).toBe(200);
    expect((await call(second.base, 'POST', `sessions/${sessionId}/conversation/`)).status).toBe(404);

    const crawl = await call(first.base, 'POST', 'docs/crawl/start/', { url: site.url('/once/0') });
    expect(crawl.status).toBe(200);
    const ended = await crawlEnded(second.base, crawl.body.id as number);
    expect(ended.status).toBe('COMPLETED');
  }, 240_000);

  it('loses, leaves stuck and duplicates nothing when one process is killed during ingestion: the other finishes every source', async () => {
    const { pid } = first.child;
    const urls = Array.from({ length: PAGES }, (_, i) => site.url(`/held/${i}`));
    expect((await call(first.base, 'POST', 'docs/data-sources/', { website_urls: urls })).status).toBe(200);
    // And a crawl, running on the first process (its start page is held too).
    const crawl = await call(first.base, 'POST', 'docs/crawl/start/', { url: site.url('/held/0') });
    expect(crawl.body.status).toBe('RUNNING');
    // Both processes hold jobs (their pages are not answered yet) when the first is killed.
    await vi.waitFor(
      async () => {
        const owners = await store.all<{ owner: string }>("SELECT DISTINCT lease_owner AS owner FROM jobs WHERE lease_owner IS NOT NULL");
        expect(owners.some(({ owner }) => owner.split('/')[1] === String(pid))).toBe(true);
        expect(owners.some(({ owner }) => owner.split('/')[1] === String(second.child.pid))).toBe(true);
      },
      { timeout: 60_000, interval: 50 },
    );
    const exited = new Promise((done) => first.child.once('exit', done));
    first.child.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();
    openGate();

    const read = await settled(second.base, '/held/', PAGES);
    // Measured, not asserted (a busy machine may take longer): how long the survivor took.
    console.info(`several-instances: all ${PAGES} sources read ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill -9`);
    expect(read.map((source) => source.status)).toEqual(Array(PAGES).fill('SUCCESS'));
    expect(new Set(read.map((source) => source.url)).size).toBe(PAGES);
    expect(await store.all('SELECT id FROM jobs')).toEqual([]);
    const chunks = await store.all<{ source_id: number; n: number }>(
      "SELECT c.source_id, count(*) AS n FROM chunks c JOIN data_sources s ON s.id = c.source_id WHERE s.url LIKE '%/held/%' GROUP BY c.source_id",
    );
    expect(chunks).toHaveLength(PAGES);
    expect(chunks.every(({ n }) => n === 1)).toBe(true);
    const found = await call(second.base, 'POST', 'docs/semantic-search/', { question: 'held okapi number 37' });
    expect(found.body.total_sources).toBeGreaterThan(0);
    // The crawl of the process that died reads as failed (its PID seen gone on this machine), through the other.
    const ended = await crawlEnded(second.base, crawl.body.id as number);
    expect(ended).toMatchObject({ status: 'FAILED', error_message: 'Interrupted: the server stopped during the crawl; start it again.' });
  }, 240_000);

  it('serves an MCP client whose requests alternate between the processes, in the stateless 2026-07-28 era', async () => {
    bases = [second.base, ...(first.child.exitCode === null && first.child.signalCode === null ? [first.base] : [])];
    // The first process was killed above: a third one takes its place.
    if (bases.length === 1) bases.push((await serve(dirs[0]!)).base);
    // A guru of its own, made through the CLI on the shared database.
    await run(process.execPath, [BIN, 'guru', 'create', 'wibble', '--json', '--data-dir', dirs[1]!], { env });
    const sent: string[] = [];
    const client = newClient('2026-07-28');
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', bases[0]), { fetch: roundRobin(sent) });
    await client.connect(transport);
    try {
      const added = (await client.callTool({
        name: 'add_sources',
        arguments: { guru_slug: 'wibble', text_sources: [{ name: 'Wibble notes', content: 'The wibble level of Frobnicator defaults to 3.' }], wait: true },
      })) as CallToolResult;
      expect(added.isError).toBeFalsy();
      const asked = (await client.callTool({ name: 'ask', arguments: { guru_slug: 'wibble', question: 'What is the default wibble level?' } })) as CallToolResult;
      expect(asked.isError).toBeFalsy();
      expect(answerOf(asked).content).toContain('defaults to 3');
    } finally {
      await client.close();
    }
    expect(new Set(sent).size).toBe(2);
  }, 120_000);

  it('needs sticky sessions in the 2025 era: a session opened on one process is unknown to the other', async () => {
    expect(bases).toHaveLength(2);
    const client = newClient('2025-11-25');
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', bases[0]), { fetch: roundRobin() });
    const failed = await client
      .connect(transport)
      .then(() => client.listTools())
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    await client.close();
    expect(failed?.message).toMatch(/session/i);
  }, 60_000);
});
