/**
 * A generated answer on every surface, composed from settings as the server
 * is (GURU_LLM_URL and GURU_LLM_MODEL, here the chat-completions stand-in):
 * streamed over REST (`stream: true`), as MCP progress messages before the
 * result, and by the CLI; each time the streamed text is the stored content.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCommand } from '../../../src/cli/registry.js';
import { openBackend, openRateLimiter, type OpenedBackend } from '../../../src/compose.js';
import { loadConfig, type Config } from '../../../src/config.js';
import { startHttpServer, type RunningHttpServer } from '../../../src/http/server.js';
import { silentLogger } from '../../../src/log.js';
import { CONFIG_GUIDE, INSTALL_GUIDE } from '../../contract/fixtures.js';
import { connectClient } from '../../mcp/support.js';
import { startChatCompletionsStandIn, streamOf, type ChatCompletionsStandIn } from '../../stand-ins/chat-completions.js';
import { call } from '../../http/support.js';
import { askStreaming } from '../../support/streamed-answer.js';
import { defaultReplies, stepOf } from './model-replies.js';

const GENERATED = 'Install it with `npm install -g frobnicator` [1], then check `frob --version` [1].';

describe('generated answers on every surface', () => {
  let dataDir: string;
  let model: ChatCompletionsStandIn;
  let config: Config;
  let backend: OpenedBackend;
  let server: RunningHttpServer;
  let key: string;
  let client: Client;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-generated-surfaces-'));
    const replies = { ...defaultReplies(), answer: () => streamOf(GENERATED) };
    model = await startChatCompletionsStandIn({ respond: (chatCall) => replies[stepOf(chatCall)](chatCall) });
    config = loadConfig({ env: { GURU_LLM_URL: model.baseUrl, GURU_LLM_MODEL: 'stand-in' }, flags: { dataDir } });
    backend = await openBackend(config, silentLogger);
    key = (await backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' })).api_key;
    await backend.assistant.createDataSources('frob', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration', content: CONFIG_GUIDE },
      ],
    });
    await (backend.assistant as unknown as { whenIdle(): Promise<void> }).whenIdle();
    server = await startHttpServer({
      backend,
      logger: silentLogger,
      host: '127.0.0.1',
      port: 0,
      limiter: await openRateLimiter(loadConfig({ env: {}, flags: { dataDir, rateLimitPerMinute: 0 } }), silentLogger),
    });
    // The revision whose clients receive every progress message before the result (see docs/mcp.md).
    client = await connectClient({ backend, logger: silentLogger }, '2025-11-25');
  });

  afterAll(async () => {
    await client.close();
    await server.close();
    await backend.close();
    await model.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('streams over REST with stream: true, and fetch_existing returns the same text with its metadata', async () => {
    const question = 'How do I install Frobnicator?';
    const response = await request(`${server.url}/api/v1/frob/answer/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ question, stream: true, external_user_id: 'rest-user' }),
    });
    expect(response.statusCode).toBe(200);
    const streamed = await response.body.text();
    expect(streamed).toBe(GENERATED);

    const existing = await call(server.url, 'POST', '/api/v1/frob/answer/', { key, body: { question, fetch_existing: true, external_user_id: 'rest-user' } });
    expect(existing.status).toBe(200);
    expect(existing.json).toMatchObject({ content: streamed, references: [expect.objectContaining({ title: 'Install guide' })], can_receive_feedback: true });
    const progress = await call(server.url, 'GET', '/api/v1/frob/answer-progress/?external_user_id=rest-user', { key });
    expect(progress.json).toMatchObject({ status_text: 'Writing the answer…' });
  });

  it('sends MCP progress messages (stages, then the text) before the result', async () => {
    const { answer, streamed } = await askStreaming(client, 'How do I install Frobnicator?');
    expect(streamed).toBe(GENERATED);
    expect(answer.content).toBe(streamed);
    expect(answer.references.map((reference) => reference.title)).toEqual(['Install guide']);
  });

  it('prints the generated answer in the CLI', async () => {
    let stdout = '';
    const sink = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        stdout += String(chunk);
        done();
      },
    });
    const command = findCommand('ask')!;
    const code = await (await command.load()).run({
      command,
      args: ['frob', 'How do I install Frobnicator?'],
      values: {},
      config,
      logger: silentLogger,
      terminal: { stdin: Readable.from([]), stdout: sink, stderr: new Writable({ write: (_chunk, _encoding, done) => done() }) },
      openBackend: () => openBackend(config, silentLogger),
    });
    expect(code).toBe(0);
    expect(stdout).toContain(GENERATED);
  });
});
