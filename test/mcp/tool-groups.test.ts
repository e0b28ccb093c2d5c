/**
 * Tool groups (GURU_TOOLS, `--tools`): each group's tools/list, the size of the whole listing, the
 * error for an unknown group, and the setting through the environment and the flag of the built
 * CLI, over stdio and streamable HTTP with the SDK's client.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { TOOL_GROUP_NAMES, TOOL_GROUPS } from '../../src/mcp/tool-groups.js';
import type { ToolGroup } from '../../src/mcp/tool-groups.js';
import { BIN } from '../global-setup.js';
import { serveGuru } from '../support/serve.js';
import { connectClient, ERAS, newClient, openTestBackend } from './support.js';
import type { TestBackend } from './support.js';

const run = promisify(execFile);

/** What tools/list may weigh, all groups together: the bytes of its result as JSON, as the client received it (issue 29). */
const MAX_TOOLS_LIST_BYTES = 24_000;

const KNOWN = `known groups: ${TOOL_GROUP_NAMES.join(', ')} (or all)`;

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

describe.each(ERAS)('tool groups (%s)', (era) => {
  let test: TestBackend;

  beforeAll(async () => {
    test = await openTestBackend();
  });

  afterAll(async () => {
    await test.close();
  });

  it.each(TOOL_GROUP_NAMES)('lists the tools of %s alone', async (group) => {
    const client = await connectClient({ backend: test.backend, logger: silentLogger, tools: [group] }, era);
    try {
      expect(await toolNames(client)).toEqual(TOOL_GROUPS[group]);
    } finally {
      await client.close();
    }
  });

  it('lists every group by default, each tool once, within 24 KB', async () => {
    const client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name).sort()).toEqual(Object.values(TOOL_GROUPS).flat().sort());
      expect(Buffer.byteLength(JSON.stringify(listed))).toBeLessThanOrEqual(MAX_TOOLS_LIST_BYTES);
    } finally {
      await client.close();
    }
  });

  it('lists two groups in the order of the groups, and says only what they hold in the instructions', async () => {
    const client = await connectClient({ backend: test.backend, logger: silentLogger, tools: ['speech', 'asking'] }, era);
    try {
      expect(await toolNames(client)).toEqual([...TOOL_GROUPS.asking, ...TOOL_GROUPS.speech]);
      const instructions = client.getInstructions() ?? '';
      expect(instructions).toContain('ask answers a question');
      expect(instructions).not.toContain('add_sources');
      expect(instructions).not.toContain('create_guru');
    } finally {
      await client.close();
    }
  });

  it('offers no guru administration on a connection scoped to one guru, whatever the groups', async () => {
    const client = await connectClient({ backend: test.backend, logger: silentLogger, scope: 'frob', tools: ['asking', 'administration'] }, era);
    try {
      expect(await toolNames(client)).toEqual(TOOL_GROUPS.asking.filter((name) => name !== 'list_gurus'));
    } finally {
      await client.close();
    }
  });
});

describe('the tools setting', () => {
  it('takes group names separated by commas, in any case and order, or all', () => {
    expect(loadConfig({ env: { GURU_TOOLS: 'Knowledge, asking' } }).tools).toEqual(['asking', 'knowledge']);
    expect(loadConfig({ env: { GURU_TOOLS: 'all' } }).tools).toEqual(TOOL_GROUP_NAMES);
    expect(loadConfig({ env: {} }).tools).toBeUndefined();
    expect(loadConfig({ env: { GURU_TOOLS: 'asking' }, flags: { tools: 'speech' } }).tools).toEqual(['speech']);
  });

  it('refuses an unknown group, naming it and the known ones', () => {
    expect(() => loadConfig({ env: { GURU_TOOLS: 'asking,serach' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { GURU_TOOLS: 'asking,serach' } })).toThrow(`tools (GURU_TOOLS): unknown tool group "serach"; ${KNOWN}`);
    expect(() => loadConfig({ env: {}, flags: { tools: ' , ' } })).toThrow(`tools (--tools): names no tool group; ${KNOWN}`);
  });
});

describe('the tools setting of the built CLI', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'guru-mcp-tool-groups-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  async function stdioTools(args: string[], env: Record<string, string> = {}): Promise<string[]> {
    const client = newClient('2025-11-25');
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, 'stdio', '--data-dir', dir, ...args], env: { ...process.env, GURU_LOG_LEVEL: 'error', ...env } as Record<string, string>, stderr: 'ignore' }),
    );
    try {
      return await toolNames(client);
    } finally {
      await client.close();
    }
  }

  it('stdio: --tools and GURU_TOOLS choose the groups; the flag wins', async () => {
    expect(await stdioTools(['--tools', 'asking'])).toEqual(TOOL_GROUPS.asking);
    expect(await stdioTools([], { GURU_TOOLS: 'crawling' })).toEqual(TOOL_GROUPS.crawling);
    expect(await stdioTools(['--tools', 'speech'], { GURU_TOOLS: 'crawling' })).toEqual(TOOL_GROUPS.speech);
    expect((await stdioTools([])).length).toBe(Object.values(TOOL_GROUPS).flat().length);
  });

  it.each([
    ['the flag', ['--tools', 'asking,nope'], {}],
    ['the environment', [], { GURU_TOOLS: 'nope' }],
  ] as const)('stdio and serve refuse an unknown group in %s with a usage error naming the known ones', async (_, args, env) => {
    for (const command of ['stdio', 'serve']) {
      const failure = await run(process.execPath, [BIN, command, '--data-dir', dir, '--port', '0', ...args].filter((arg) => command === 'serve' || arg !== '--port' && arg !== '0'), {
        env: { ...process.env, ...env },
      }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure, command).toBeDefined();
      expect(failure!.code, command).toBe(2);
      expect(failure!.stderr, command).toContain(`unknown tool group "nope"; ${KNOWN}`);
    }
  });

  it.each([
    ['the flag', {}, ['--tools', 'knowledge,end-users']],
    ['the environment', { GURU_TOOLS: 'knowledge,end-users' }, []],
  ] as const)('serve: %s chooses the groups of /mcp', async (_, env, args) => {
    const served = await serveGuru('frob', env, args);
    const client = newClient('2025-11-25');
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.base}/mcp`)));
      const expected: ToolGroup[] = ['knowledge', 'end-users'];
      expect(await toolNames(client)).toEqual(expected.flatMap((group) => TOOL_GROUPS[group]));
      expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['guru://frob/data-sources']);
    } finally {
      await client.close();
      await served.close();
    }
  });
});
