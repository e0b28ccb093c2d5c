/**
 * Two `guru-mcp serve` processes on one Redis (GURU_REDIS_URL), each with a data directory of
 * its own (a copy, as two machines on one database would see the same gurus, keys and secret): the rate
 * limit counts the requests made through both, and an answer's progress line written through one
 * is read through the other. The Redis server is a real one on loopback, started for this file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDirSecret } from '../../src/data-dir.js';
import { BIN } from '../global-setup.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { listeningOn } from '../support/serve.js';

const run = promisify(execFile);

describe('two serve processes on one Redis', () => {
  let redis: TestRedis;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  let apiKey: string;
  let env: NodeJS.ProcessEnv;
  let first: string;
  let second: string;

  beforeAll(async () => {
    redis = await startRedis();
    env = { ...process.env, GURU_REDIS_URL: redis.url, GURU_RATE_LIMIT_PER_MINUTE: '2' };
    const one = mkdtempSync(join(tmpdir(), 'guru-redis-serve-'));
    const two = mkdtempSync(join(tmpdir(), 'guru-redis-serve-'));
    dirs.push(one, two);
    const { stdout } = await run(process.execPath, [BIN, 'guru', 'create', 'docs', '--json', '--data-dir', one], { env });
    apiKey = (JSON.parse(stdout) as { api_key: string }).api_key;
    // The data directory's secret names end users' windows: processes that share windows share it
    // (copied here with the rest, as the gurus and keys are).
    dataDirSecret(one);
    cpSync(one, two, { recursive: true });
    const serve = (dataDir: string) => {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      return listeningOn(child);
    };
    [first, second] = await Promise.all([serve(one), serve(two)]);
  });

  afterAll(async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await redis?.stop();
  });

  const call = async (base: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const reply = await request(`${base}/api/v1/docs/${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: reply.statusCode, body: (await reply.body.json()) as Record<string, unknown> };
  };
  const search = (base: string, externalUserId: string) => call(base, 'POST', 'semantic-search/', { question: 'lamp', external_user_id: externalUserId });

  it('counts the rate limit over the requests made through both', async () => {
    expect((await search(first, 'ann')).status).toBe(200);
    expect((await search(second, 'ann')).status).toBe(200);
    expect(await search(second, 'ann')).toEqual({ status: 429, body: { error: 'Rate limit exceeded' } });
    expect(await search(first, 'ann')).toEqual({ status: 429, body: { error: 'Rate limit exceeded' } });
    // Another end user has a window of their own.
    expect((await search(second, 'bob')).status).toBe(200);
  });

  it("reads through one process the answer progress an answer wrote through the other", async () => {
    const before = Date.now() / 1000;
    const asked = await call(first, 'POST', 'answer/', { question: 'How do I install the lamp?', stream: false, external_user_id: 'cy' });
    expect(asked.status).toBe(200);
    const line = await call(second, 'GET', 'answer-progress/?external_user_id=cy');
    expect(line.status).toBe(200);
    expect(line.body.status_text).not.toBe('');
    expect(line.body.updated_at).toBeGreaterThanOrEqual(Math.floor(before));
    expect((await redis.client.keys('guru-mcp:answer-progress::*')).length).toBe(1);
    // Polls count in the end user's window with the question (the spec's rule), through either process.
    const third = await call(first, 'GET', 'answer-progress/?external_user_id=cy');
    expect(third.status).toBe(429);
    expect(third.body.msg).toMatch(/^Request was throttled\. Expected available in \d+ seconds?\.$/);
  });

  it("deletes the guru's windows and progress lines from Redis with the guru, and nothing else", async () => {
    await redis.client.set('guru-mcp:rate-limit::docs-2:all:x', '1');
    await redis.client.set('unrelated', '1');
    expect((await redis.client.keys('guru-mcp:*')).length).toBeGreaterThan(1);
    await run(process.execPath, [BIN, 'guru', 'delete', 'docs', '--yes', '--data-dir', dirs[0]!], { env });
    expect((await redis.client.keys('*')).sort()).toEqual(['guru-mcp:rate-limit::docs-2:all:x', 'unrelated']);
  });
});
