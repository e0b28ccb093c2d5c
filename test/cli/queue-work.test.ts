/**
 * Which commands work through the queue of sources to process: those that wait
 * for processing (and the servers). Read-only commands, and --no-wait, leave
 * queued work alone, neither starting nor taking it over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCommand } from '../../src/cli/registry.js';
import type { BackendUse, CommandContext } from '../../src/cli/spec.js';
import { openBackend } from '../../src/compose.js';
import { loadConfig, type Config } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { respond, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

let dataDir: string;
let config: Config;
let site: LoopbackServer;
const page = '<!DOCTYPE html><html><head><title>Queued page</title></head><body><main><h1>Queued</h1><p>Read when processed.</p></main></body></html>';
const fetches = () => site.requests.filter((request) => request.path.startsWith('/queued')).length;

interface Engine {
  whenIdle(): Promise<void>;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-queue-'));
  config = loadConfig({ env: {}, flags: { dataDir, allowPrivateNetwork: true } });
  site = await startLoopbackServer({ '/queued': respond(page), '/queued-too': respond(page) });
  const backend = await openBackend(config, silentLogger, { processing: false });
  try {
    await backend.admin!.createGuru({ slug: 'docs' });
  } finally {
    await backend.close();
  }
});

afterAll(async () => {
  await site.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs a command in-process, noting what it opened the backend for. */
async function run(name: string, args: string[], values: CommandContext['values'] = {}): Promise<BackendUse[]> {
  const uses: BackendUse[] = [];
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const context: CommandContext = {
    command: findCommand(name)!,
    args,
    values,
    config,
    logger: silentLogger,
    terminal: { stdin: Readable.from([]), stdout: sink, stderr: sink },
    openBackend: (use) => {
      uses.push(use ?? { processing: false });
      return openBackend(config, silentLogger, use);
    },
  };
  expect(await (await context.command.load()).run(context)).toBe(0);
  return uses;
}

describe('work on the queue', () => {
  it('an engine opened without processing leaves queued sources alone', async () => {
    const reader = await openBackend(config, silentLogger, { processing: false });
    try {
      const [created] = await reader.assistant.createDataSources('docs', { website_urls: [site.url('/queued')] });
      // With processing, this would resolve only once the page was read.
      await (reader.assistant as unknown as Engine).whenIdle();
      expect(fetches()).toBe(0);
      const listed = await reader.assistant.listDataSources('docs', { page: 1, page_size: 10 });
      expect(listed.results.find((source) => source.id === created!.id)).toMatchObject({ status: 'NOT_PROCESSED' });
    } finally {
      await reader.close();
    }
  });

  it('read-only commands and --no-wait open the backend without processing; a command that waits processes', async () => {
    for (const [name, args, values] of [
      ['sources', ['docs'], {}],
      ['search', ['docs', 'queued'], {}],
      ['ask', ['docs', 'What', 'is', 'queued?'], {}],
      ['sessions', ['docs'], {}],
      ['add', ['docs', site.url('/queued-too')], { 'no-wait': true }],
    ] as const) {
      expect(await run(name, [...args], values), name).toEqual([{ processing: false }]);
    }
    expect(fetches()).toBe(0);

    expect(await run('add', ['docs', site.url('/queued')])).toEqual([{ processing: true }]);
    expect(fetches()).toBeGreaterThan(0);
  });
});
